"""Scoring: evaluation jobs of the runs against every ground truth, the leaderboard, trust checks and
plots; listens to what collection and ground truth announce (``receivers``)."""
