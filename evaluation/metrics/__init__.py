"""The metric module: pure Python and NumPy, no Django, usable as a library and from the CLI.

- ``trec/``: trec_eval's measures (``measures``), TREC files in and out (``files``: qrels and runs;
  ``topics``: topic files), trec_eval's output layout (``layout``), measure names as trec_eval and
  ir_measures write them (``names``), pooling (``pooling``), set measures of ranked runs;
- ``fusion/``: run fusion, reciprocal rank fusion and CombSUM/CombMNZ (one module each) over score
  normalisations, equal to ranx's;
- ``rouge/``: ROUGE-N, -L, -Lsum, -W, -S, -SU (``scores``) over its n-grams, LCS and text handling;
- ``text/``: BLEU, chrF, TER, WER, one module each, and every output scored at once (``scores``);
- ``significance``, ``intervals``, ``leaderboard``: tests and intervals over topics;
- ``curves``, ``sets``, ``trust``, ``meta_evaluation``; ``plotting``, ``plot_data``, ``colours`` for
  the figures; ``natural_order`` for topic ids; ``pairs_io`` for prediction/reference files.
"""
