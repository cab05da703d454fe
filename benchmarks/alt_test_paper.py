"""The alternative-annotator test (issue 24) on its authors' own data: Cranfield's
``annotation.crowd.quality.alt_test`` against the winning rate and advantage probability that the
authors' notebook (``alt_test_example.ipynb`` of ``github.com/nitaytech/AltTest``) prints for nine data
sets × up to six LLMs, each with the alignment score and ε the notebook gives it. The data is read from a
clone of that repository (its terms do not let the project ship it), never copied.

    git clone https://github.com/nitaytech/AltTest /tmp/AltTest
    .venv/bin/python benchmarks/alt_test_paper.py --repo /tmp/AltTest
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

# The notebook's own settings per data set: the alignment score and ε.
SETTINGS = {
    "wax": ("accuracy", 0.1),
    "lgbteen": ("accuracy", 0.2),
    "mtbench": ("accuracy", 0.2),
    "framing": ("accuracy", 0.15),
    "cebab_aspects": ("accuracy", 0.1),
    "summeval": ("neg_rmse", 0.2),
    "10k_prompts": ("neg_rmse", 0.15),
    "cebab_stars": ("neg_rmse", 0.1),
    "lesion": ("neg_rmse", 0.15),
}


def printed_figures(notebook: Path) -> dict[str, tuple[float, float]]:
    """``{"<data set> <llm>": (winning rate, advantage probability)}`` as the notebook printed them."""
    figures = {}
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            for line in output.get("text", []):
                if "Winning Rate=" in line:
                    head, rate, advantage = line.strip().split("\t")
                    figures[head.split(" [")[0]] = (float(rate.split("=")[1]), float(advantage.split("=")[1]))
    return figures


def main() -> None:
    from annotation.crowd.quality.alt_test import alt_test

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True, help="a clone of github.com/nitaytech/AltTest")
    args = parser.parse_args()
    printed = printed_figures(args.repo / "alt_test_example.ipynb")
    equal = compared = 0
    for name, (alignment, epsilon) in SETTINGS.items():
        folder = args.repo / "data" / name
        people = json.loads((folder / "human_annotations.json").read_text())
        for llm, labels in json.loads((folder / "llm_annotations.json").read_text()).items():
            result = alt_test(labels, people, alignment=alignment, epsilon=epsilon)
            ours = (round(result.winning_rate or 0.0, 2), round(result.advantage_probability or 0.0, 2))
            theirs = printed.get(f"{name} {llm}")
            compared += 1
            same = theirs is not None and all(abs(a - b) < 0.006 for a, b in zip(ours, theirs, strict=True))
            equal += same
            verdict = "PASSED" if result.passed else "FAILED"
            mark = "" if same else f"   <- the notebook printed {theirs}"
            print(f"{name:<14} {llm:<13} {verdict} winning rate {ours[0]:.2f}, advantage {ours[1]:.2f}{mark}")
    print(f"{equal} of {compared} (data set, LLM) pairs equal the notebook's printed figures")
    sys.exit(0 if equal == compared else 1)


if __name__ == "__main__":
    main()
