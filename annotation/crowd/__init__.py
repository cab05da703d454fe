"""Pure statistics of crowd judgements, no Django: the field's table of contents.

- ``agreement/``: Fleiss', Randolph's and Cohen's kappas, Krippendorff's alpha, per-label agreement,
  prevalence and PABAK, bootstrap intervals, the summary a snapshot stores;
- ``aggregation/``: one module per method (majority vote, Dawid–Skene, one-coin, gold-weighted, GLAD,
  MACE, M-MSR, Wawa, zero-based skill), their ties, every method by name;
- ``pairwise/``: Bradley–Terry strengths from comparisons;
- ``quality/``: each annotator against the aggregate;
- ``ratings/``: rating summaries and per-annotator normalisation;
- ``io/``: judgements encoded once as integer arrays, label files read and written;
- ``adjudication``: which items are disputed or tied under a project's rule;
- ``minimums``: below how many topics, items or systems a figure is not shown, and why;
- ``pay``: what a paid campaign costs (pay, bonuses, fees, forecast, fair hourly pay, budget) and its
  payments in Prolific's and Mechanical Turk's bulk formats.

Every function takes (item, annotator, label) triples or their one-time encoding
(``io.encoding.encode``).
"""
