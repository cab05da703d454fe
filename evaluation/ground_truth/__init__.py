"""Ground truth: read the judgements, compute (``annotation.crowd``), write a versioned snapshot; its jobs,
downloads, diffs, agreement report and ties. Announces every snapshot written (``evaluation.signals``)."""
