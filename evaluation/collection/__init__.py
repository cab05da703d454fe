"""A test collection in: the import flow (``flow``), runs stored and pooled, external qrels and references,
import jobs for large bodies, examples per task type, runs withdrawn or deleted; their pages and API.
Announces what it imported (``evaluation.signals``)."""
