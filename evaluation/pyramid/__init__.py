"""The Pyramid method from the crowd (issue 26): a LitePyramid campaign imported in one body (references,
summary content units, the systems' summaries), judged as ``scu_presence`` micro-tasks, and scored from
a ground-truth snapshot (original, modified and LitePyramid scores per summary and system)."""
