"""REALSumm's headline question (issue 26): how well does ROUGE rank the 25 systems the way LitePyramid
does? System-level Kendall's τ-b of ROUGE-1/2/L (rouge-score, Porter stemming; F1 and recall) against
LitePyramid recall, each system's mean over its 100 summaries.

LitePyramid is computed as the app computes it on REALSumm (``tests/pyramid/test_realsumm.py``: majority of
each HIT's answers, a 2–2 tie absent) from ``../shared/data/summ_realsumm``; the summaries are those the
workers saw (the CSVs' ``Input.summary_text``). The reference summaries are not in ../shared: they are read
from a clone of ``github.com/neulab/REALSumm`` (``selected_docs_for_human_eval/<abs|ext>/<system>/ref.txt``,
line i the document at position i of ``selected_documents.md``'s list, ``<t>`` tags dropped), never copied.

    .venv/bin/python benchmarks/realsumm_rouge_tau.py --repo /path/to/REALSumm
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repo", required=True, type=Path, help="a clone (or bare mirror) of neulab/REALSumm"
    )
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cranfield.settings")
    os.environ.setdefault("DEBUG", "true")
    import django

    django.setup()
    from rouge_score import rouge_scorer
    from scipy.stats import kendalltau

    from tests.conftest import locate_data_set
    from tests.pyramid.test_realsumm import hits

    def show(path: str) -> str:
        return subprocess.run(
            ["git", "-C", str(args.repo), "show", f"HEAD:{path}"], capture_output=True, text=True, check=True
        ).stdout

    listed = subprocess.run(
        ["git", "-C", str(args.repo), "ls-tree", "-r", "--name-only", "HEAD"], capture_output=True, text=True
    ).stdout.split()
    order = ast.literal_eval(
        re.search(r"\[[\d, ]+\]", show("selected_docs_for_human_eval/selected_documents.md")).group(0)
    )
    position = {f"cnndm{n}": i for i, n in enumerate(order)}
    folder = locate_data_set("summ_realsumm")
    if folder is None:
        sys.exit("the REALSumm files are missing: see tests/data/README.md (summ_realsumm)")
    lite: dict[str, list[float]] = {}
    texts: dict[str, dict[str, str]] = {}
    for system, document, text, answers in hits(folder):
        lite.setdefault(system, []).append(
            sum(g.count("p") > g.count("n") for _, g in answers) / len(answers)
        )
        texts.setdefault(system, {})[document] = text

    def reference_file(system: str) -> str:
        kind, name = system.split(".", 1)
        base = name.split("_out")[0]
        for folder_kind in (kind, "ext", "abs"):  # banditsumm's and neusumm's CSVs sit with the abstractive
            path = f"selected_docs_for_human_eval/{folder_kind}/{base}/ref.txt"
            if path in listed:
                return path
        raise SystemExit(f"no reference file for {system}")

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    means: dict[str, dict[str, float]] = {}
    for system in sorted(lite):
        references = [
            re.sub(r"</?t>", " ", line).strip() for line in show(reference_file(system)).split("\n")
        ]
        scores = [scorer.score(references[position[d]], text) for d, text in texts[system].items()]
        means[system] = {
            f"{name} {part}": statistics.fmean(getattr(s[name], part) for s in scores)
            for name in ("rouge1", "rouge2", "rougeL")
            for part in ("fmeasure", "recall")
        }
    systems = sorted(means)
    human = [statistics.fmean(lite[s]) for s in systems]
    print(f"{len(systems)} systems, 100 summaries each; cores: {os.cpu_count()}\n")
    print("| ROUGE (rouge-score, stemmed) | Kendall's τ-b with LitePyramid recall |")
    print("| --- | ---: |")
    for metric in means[systems[0]]:
        tau = kendalltau([means[s][metric] for s in systems], human).statistic
        print(f"| {metric} | {tau:+.3f} |")


if __name__ == "__main__":
    main()
