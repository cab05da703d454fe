"""Record NIST's sample_eval.pl (and statAP_MQ_eval_v3.pl) on a few generated sampled pools, for
tests/metrics/test_inferred.py (and test_stat_ap.py).

Usage, from the project root (see PROVENANCE.md here for where to get the scripts):

    PYTHONPATH=. python tests/data/sample_eval/record.py SAMPLE_EVAL_PL [STATAP_MQ_EVAL_V3_PL]

Writes, for each case, ``<case>.qrels`` (sample qrels), ``<case>.run`` and ``<case>.out`` (the script's
output with ``-q``) into this folder, and with the second script ``statap/<case>.prels``, ``.run`` and
``.out``, replacing what is there.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from evaluation.metrics.trec.sample_files import read_sample_qrels
from evaluation.metrics.trec.stat_ap import inclusion_probabilities, write_prels
from tests.metrics.sample_eval_cases import DESIGNS, edge_case, generate

HERE = Path(__file__).parent
# One case per design, five topics each (four in the run): small files, every design and quirk covered.
RECORDED = [(7000 + index, 5, design) for index, design in enumerate(DESIGNS)]


def record_stat_ap(script: str) -> None:
    """Tie-free runs (the script ranks ties in Perl's hash order), prels from the sample qrels."""
    folder = HERE / "statap"
    folder.mkdir(exist_ok=True)
    for seed, topics, design in RECORDED[:2]:
        case = generate(seed, topics + 1, design, ties=False)
        prels, run = folder / f"{case.name}.prels", folder / f"{case.name}.run"
        with open(prels, "w") as handle:
            write_prels(inclusion_probabilities(read_sample_qrels(case.sample_qrels.splitlines())), handle)
        run.write_text(case.run)
        output = subprocess.run(
            ["perl", script, "-q", str(prels), str(run)], capture_output=True, text=True, check=True
        ).stdout
        (folder / f"{case.name}.out").write_text(output)
        print(f"statap/{case.name}: {len(prels.read_text().splitlines())} prels lines")


def main(script: str) -> None:
    for case in [generate(seed, topics, design) for seed, topics, design in RECORDED] + [edge_case()]:
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
    if len(sys.argv) > 2:
        record_stat_ap(sys.argv[2])
