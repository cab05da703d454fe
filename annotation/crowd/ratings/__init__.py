"""Ratings: per-item summaries inside the scale, and per-annotator normalisation."""
