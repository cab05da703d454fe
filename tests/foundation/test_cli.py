"""The ``cranfield`` command line: it starts at once, each command loads only what it uses, and every
command reports errors the same way."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cranfield.cli
from cranfield.cli import build_parser, main

# Each takes a second or more to import (nltk alone about 1,900 modules); none is needed to parse options.
HEAVY = {"django", "celery", "kombu", "nltk", "sklearn", "scipy", "statsmodels", "matplotlib", "pandas"}
COMMANDS = [
    "aggregate",
    "agreement",
    "alt-test",
    "bleu",
    "bradley-terry",
    "compare",
    "fuse",
    "meta-eval",
    "plot",
    "pool-bias",
    "rouge",
    "sample-eval",
    "sample-pool",
    "sets",
    "tau",
    "trec-eval",
    "wer",
]


def imported_modules(*arguments: str, cwd: Path | None = None) -> set[str]:
    """Modules that ``python -X importtime -m cranfield ARGUMENTS`` imports, as a user runs it."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cranfield", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    names = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*([\w.]+)$", result.stderr, re.MULTILINE)
    assert names, "no -X importtime lines in stderr"
    return set(names)


def imported_packages(*arguments: str, cwd: Path | None = None) -> set[str]:
    return {name.split(".")[0] for name in imported_modules(*arguments, cwd=cwd)}


def test_help_lists_the_program(capsys):
    assert main([]) == 0
    assert "usage: cranfield" in capsys.readouterr().out


def test_console_script_answers_help():
    script = Path(sys.executable).with_name("cranfield")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "Cranfield" in result.stdout


def test_every_command_module_is_named_after_its_command():
    modules = sorted(info.name for info in pkgutil.iter_modules(cranfield.cli.__path__))
    assert [name.replace("_", "-") for name in modules] == COMMANDS
    assert sorted(build_parser()._subparsers._group_actions[0].choices) == COMMANDS


@pytest.mark.parametrize("arguments", [["--help"], *([command, "--help"] for command in COMMANDS)])
def test_help_imports_nothing_heavy(arguments):
    heavy = imported_packages(*arguments) & HEAVY
    assert not heavy, f"cranfield {' '.join(arguments)} imports {sorted(heavy)}"


def test_trec_eval_imports_only_numpy_beyond_the_standard_library(tmp_path):
    (tmp_path / "qrels").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "run").write_text("1 Q0 d1 1 2.0 mine\n1 Q0 d2 2 1.0 mine\n")
    packages = imported_packages("trec-eval", "-m", "all_trec", "qrels", "run", cwd=tmp_path)
    assert not packages & (HEAVY | {"annotation", "sacrebleu", "jiwer"}), sorted(packages)
    assert "numpy" in packages


def test_trec_eval_on_a_large_run_imports_only_numpy_and_arrow_s_reader(tmp_path):
    """A run above columnar.SMALLEST_RUN is read by Arrow's CSV reader: still no pandas (Arrow's own
    to_numpy would import it) and none of Arrow's compute functions (0.3 s to start)."""
    (tmp_path / "qrels").write_text(
        "".join(f"{t} 0 d{d} {d % 3}\n" for t in range(50) for d in range(0, 400, 3))
    )
    with open(tmp_path / "run", "w") as out:
        out.writelines(
            f"{t} Q0 d{d} {d + 1} {1 - d / 3000!r} mine\n" for t in range(120) for d in range(1000)
        )
    assert (tmp_path / "run").stat().st_size > 4 << 20
    modules = imported_modules("trec-eval", "-m", "all_trec", "qrels", "run", cwd=tmp_path)
    packages = {name.split(".")[0] for name in modules}
    assert not packages & (HEAVY | {"annotation", "sacrebleu", "jiwer"}), sorted(packages)
    assert "pyarrow.csv" in modules, "the large run was not read by Arrow's reader"
    assert "pyarrow.compute" not in modules


def test_sets_imports_nothing_heavy(tmp_path):
    (tmp_path / "qrels").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "run").write_text("1 Q0 d1 1 2.0 mine\n1 Q0 d2 2 1.0 mine\n")
    packages = imported_packages("sets", "qrels", "run", "-k", "1", cwd=tmp_path)
    assert not packages & (HEAVY | {"annotation", "sacrebleu", "jiwer"}), sorted(packages)


def test_fuse_imports_nothing_heavy(tmp_path):
    (tmp_path / "a").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    (tmp_path / "b").write_text("1 Q0 d2 1 2.0 b\n1 Q0 d3 2 1.0 b\n")
    packages = imported_packages("fuse", "a", "b", "--method", "combmnz", cwd=tmp_path)
    assert not packages & (HEAVY | {"annotation", "ranx", "numba"}), sorted(packages)


def test_sample_eval_and_sample_pool_import_nothing_heavy(tmp_path):
    (tmp_path / "sample").write_text("1 0 d1 1 1\n1 0 d2 1 -1\n")
    (tmp_path / "run").write_text("1 Q0 d1 1 2.0 mine\n1 Q0 d2 2 1.0 mine\n")
    for arguments in (("sample-eval", "-q", "sample", "run"), ("sample-pool", "run", "--seed", "1")):
        packages = imported_packages(*arguments, cwd=tmp_path)
        assert not packages & (HEAVY | {"annotation"}), sorted(packages)


def test_rouge_imports_nltk_s_porter_stemmer_only_when_stemming_and_not_the_rest_of_nltk(tmp_path):
    (tmp_path / "pairs.jsonl").write_text('{"id": 1, "prediction": "cats sat", "references": ["cat"]}\n')
    plain = imported_packages("rouge", "pairs.jsonl", "--bootstrap", "0", cwd=tmp_path)
    assert not plain & HEAVY, sorted(plain & HEAVY)
    stemmed = imported_modules("rouge", "pairs.jsonl", "--stem", "--bootstrap", "0", cwd=tmp_path)
    assert "nltk.stem.api" in stemmed  # porter.py's own line is missing: importlib.import_module loads it
    assert not {name.split(".")[0] for name in stemmed} & (HEAVY - {"nltk"})
    assert {name for name in stemmed if name.startswith("nltk")} <= {
        "nltk.redos", "nltk.termsec", "nltk.stem.api", "nltk.stem.porter"
    }  # fmt: skip


def test_aggregate_needs_no_agreement_statistics(tmp_path):
    (tmp_path / "labels.csv").write_text("item,worker,label\n1,a,x\n1,b,x\n2,a,y\n2,b,x\n")
    packages = imported_packages("aggregate", "labels.csv", "--method", "dawid-skene", cwd=tmp_path)
    assert not packages & {"django", "celery", "nltk", "sklearn", "statsmodels", "matplotlib", "krippendorff"}


def test_choices_named_in_the_command_line_are_the_libraries_own():
    import sacrebleu

    from annotation.crowd.agreement.bootstrap import STATISTICS
    from cranfield.cli import bleu, compare
    from evaluation.metrics import significance

    assert compare.TESTS == significance.TESTS
    assert tuple(sacrebleu.BLEU.SMOOTH_DEFAULTS) == bleu.SMOOTH_METHODS
    statistics_help = next(
        action.help
        for action in build_parser()._subparsers._group_actions[0].choices["agreement"]._actions
        if action.dest == "ci_statistics"
    )
    assert re.findall(r"\w+_\w+", statistics_help) == list(STATISTICS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_reports_an_error_as_argparse_does(command, tmp_path, capsys):
    missing = str(tmp_path / "missing")
    files = (
        [missing, missing]
        if command
        in (
            "alt-test",
            "compare",
            "fuse",
            "meta-eval",
            "pool-bias",
            "sample-eval",
            "sets",
            "tau",
            "trec-eval",
        )
        else [missing]
    )
    if command == "sample-pool":
        files = [missing, "--seed", "1"]
    if command == "plot":
        files = ["pr", missing, missing, "-o", str(tmp_path / "plot.png")]
    assert main([command, *files]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"cranfield {command}: error: ") and "missing" in captured.err


def test_command_modules_print_no_errors_of_their_own():
    for path in Path(cranfield.cli.__file__).parent.glob("*.py"):
        if path.name != "__init__.py":
            assert "sys.stderr" not in path.read_text(), f"{path.name}: raise CommandError instead"


def test_an_unknown_bleu_tokeniser_names_sacrebleus(tmp_path, capsys):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"id": 1, "prediction": "a", "references": ["a"]}\n')
    assert main(["bleu", str(pairs), "--tokenize", "13b"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("cranfield bleu: error: --tokenize: unknown tokeniser '13b'") and "intl" in error
