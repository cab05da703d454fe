"""TREC: trec_eval's measures, qrels, runs and topic files, its output layout, measure names, pooling."""
