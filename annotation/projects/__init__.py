"""A researcher's projects on the collecting side: their pages (create, configure, annotators, downloads),
the judgements as downloads, the project's history and the changes that undo mistakes."""
