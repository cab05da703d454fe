"""The ``cranfield`` command line.

Every module in this package named after a subcommand (``trec_eval.py`` is ``cranfield trec-eval``)
defines ``register(subparsers)``; ``main`` discovers them, so adding a command never means editing
this file. Building the parser imports every one of them, so a command module imports only the
standard library at its top and its real work (NumPy, SciPy, sacrebleu, nltk, …) inside the
function that runs the command: ``cranfield --help`` and ``cranfield <command> --help`` then start
in a few hundredths of a second, and a command loads only what it uses
(tests/foundation/test_cli.py holds every module to that). No command sets up Django.

A command that cannot go on raises ``CommandError``; ``main`` prints it as argparse prints a bad
option, ``cranfield <command>: error: <message>`` on stderr, and returns 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys


class CommandError(Exception):
    """A command cannot go on: bad input or options. The message says why, without the prefix."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cranfield",
        description="Cranfield: build gold standards for IR and NLP evaluation, and score systems "
        "against them.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
