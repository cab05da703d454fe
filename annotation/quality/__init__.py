"""Quality control: the qualification test, and attention checks with their results per annotator."""
