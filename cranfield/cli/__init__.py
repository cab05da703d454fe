"""The ``cranfield`` command line.

Every module in this package is named after its subcommand (``trec_eval.py`` is ``cranfield
trec-eval``) and defines ``register(subparsers)``; ``main`` discovers them, so adding a command never
means editing this file. ``cranfield COMMAND …`` imports only that command's module (the others are
registered by name alone), ``cranfield --help`` all of them, so a command module imports only the
standard library and light modules at its top, and its real work (NumPy, SciPy, sacrebleu, nltk, …)
inside the function that runs the command: the help then takes a few hundredths of a second beyond
the interpreter's start, and a command loads only what it uses (tests/foundation/test_cli.py holds
every module to that). No command sets up Django.

A command that cannot go on raises ``CommandError``; ``main`` prints it as argparse prints a bad
option, ``cranfield <command>: error: <message>`` on stderr, and returns 2.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import os
import pkgutil
import sys
from collections.abc import Iterator, Sequence


class CommandError(Exception):
    """A command cannot go on: bad input or options. The message says why, without the prefix."""


def commands() -> list[str]:
    """Every command's name, from the module names (found without importing them)."""
    return sorted(info.name.replace("_", "-") for info in pkgutil.iter_modules(__path__))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``only`` set to a command's name, that command's in full and the
    others' names alone (so a mistyped name is still listed among the choices)."""
    parser = argparse.ArgumentParser(
        prog="cranfield",
        description="Cranfield: build gold standards for IR and NLP evaluation, and score systems "
        "against them.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in commands():
        if only is not None and command != only:
            subparsers.add_parser(command)
        else:
            importlib.import_module(f"{__name__}.{command.replace('-', '_')}").register(subparsers)
    return parser


def fields_of_lines(path: str) -> Iterator[tuple[int, list[str]]]:
    """Each line of a small whitespace-separated file as (line number, fields), blank lines and ``#``
    comments skipped; a file that cannot be read is a CommandError."""
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                fields = line.split()
                if fields and not fields[0].startswith("#"):
                    yield number, fields
    except OSError as error:
        raise CommandError(error) from error


def csv_rows(path: str, columns: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """Each data row of a CSV file whose header names ``columns``, as (line number, row). CommandError
    names the file, and the line, of a file that cannot be read or is not UTF-8 CSV, a header without
    one of ``columns``, or a row with fewer fields than the header."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [column for column in columns if column not in (reader.fieldnames or [])]
            if missing:
                raise CommandError(f"{path}: the header must name {', '.join(columns)}; missing {missing[0]}")
            for row in reader:
                if None in row.values():
                    raise CommandError(f"{path}, line {reader.line_num}: fewer fields than the header names")
                yield reader.line_num, row
    except OSError as error:
        raise CommandError(error) from error
    except (UnicodeDecodeError, csv.Error) as error:
        raise CommandError(f"{path}: not a UTF-8 CSV file ({error})") from None


def notice(command: str, message: str) -> None:
    """Tell the user something about a result that went to standard output (which stays data only),
    as ``cranfield <command>: <message>`` on standard error; errors raise CommandError instead."""
    print(f"cranfield {command}: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # NumPy's OpenBLAS starts a thread per core as it loads, and they spin while they wait; the
    # commands' matrix products are small (Dawid-Skene's are items x classes), so the threads cost
    # more than they save, most of all on a busy machine (aggregate on 300,000 labels at load 11:
    # 0.85 -> 0.6 s CPU, 1.4 -> 0.9 s wall). Read when NumPy loads; a user's own setting is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # The top-level parser takes no option but --help, so its first other word names the command.
    named = next((word for word in argv if not word.startswith("-")), None)
    parser = build_parser(named if named in commands() else None)
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0 if args.command is None else 2
    try:
        return int(args.handler(args) or 0)
    except CommandError as error:
        print(f"cranfield {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `cranfield trec-eval … | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
