"""Pairwise comparisons: Bradley–Terry strengths with bootstrap intervals."""
