"""Agreement and aggregation of crowd labels: pure functions on (item, annotator, label) triples or
their one-time encoding (``encoding.encode``), no Django."""
