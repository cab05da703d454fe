"""Disputed and tied items: the project's rule applied as judgements arrive, and a researcher's decision by
hand (``rules``)."""
