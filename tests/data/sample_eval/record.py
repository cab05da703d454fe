"""Record NIST's sample_eval.pl on a few generated sampled pools, for tests/metrics/test_inferred.py.

Usage, from the project root (see PROVENANCE.md here for where to get the script):

    PYTHONPATH=. python tests/data/sample_eval/record.py /path/to/sample_eval.pl

Writes, for each case, ``<case>.qrels`` (sample qrels), ``<case>.run`` and ``<case>.out`` (the script's
output with ``-q``) into this folder, replacing what is there.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.metrics.sample_eval_cases import DESIGNS, generate

HERE = Path(__file__).parent
# One case per design, five topics each (four in the run): small files, every design and quirk covered.
RECORDED = [(7000 + index, 5, design) for index, design in enumerate(DESIGNS)]


def main(script: str) -> None:
    for seed, topics, design in RECORDED:
        case = generate(seed, topics, design)
        qrels, run = HERE / f"{case.name}.qrels", HERE / f"{case.name}.run"
        qrels.write_text(case.sample_qrels)
        run.write_text(case.run)
        output = subprocess.run(
            ["perl", script, "-q", str(qrels), str(run)], capture_output=True, text=True, check=True
        ).stdout
        (HERE / f"{case.name}.out").write_text(output)
        print(f"{case.name}: {len(case.sample_qrels.splitlines())} sample qrels lines")


if __name__ == "__main__":
    main(sys.argv[1])
