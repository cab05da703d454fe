"""Judging: the assignment engine (leases, exact k), whether every item can get its k (``coverage``), the
counts every annotator request needs, the annotators' pages, and imported text made readable and
highlighted."""
