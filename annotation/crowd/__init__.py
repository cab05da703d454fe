"""Agreement and aggregation of crowd labels: pure functions on (item, worker, label) triples, no Django."""
