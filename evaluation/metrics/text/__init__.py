"""Text metrics, one module each: BLEU, chrF, TER, WER; ``scores`` scores every output with all of them."""
