"""ROUGE (Lin 2004): every variant ROUGE-1.5.5 has, checked against rouge-score and ROUGE-1.5.5's own
sample."""
