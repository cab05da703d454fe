"""A whole test collection in one file: written (``archive``), its API and URLs."""
