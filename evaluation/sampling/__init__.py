"""Sampling simulations: how far a sampled pool of the project's runs would be from full judgement
(issue 25, item 3), as a job, a page with its plot, and an API."""
