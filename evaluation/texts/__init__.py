"""Text projects: text evaluation jobs (automatic metrics per output), per-system human scores, the meta-
evaluation of metrics against ratings; their pages and API."""
