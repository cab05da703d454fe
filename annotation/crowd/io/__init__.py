"""Judgements in and out: encoded once as integer arrays (``encoding``), and label files read and written
(``labels``)."""
