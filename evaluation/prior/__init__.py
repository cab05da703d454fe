"""Prior judgements reused (issue 25, item 2): qrels made before the project imported as named sets,
pooling that skips the pairs they judge, their merge into the ground truth, and the crowd's agreement
with them on the pairs both judged."""
