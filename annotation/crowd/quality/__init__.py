"""Annotator quality: each annotator against the aggregate."""
