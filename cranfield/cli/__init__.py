"""The ``cranfield`` command line.

Every module in this package that defines ``register(subparsers)`` contributes one or more
subcommands; ``main`` discovers them, so adding a command never means editing this file.
Pure commands (metrics, agreement) never set up Django.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys


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
    except BrokenPipeError:  # e.g. `cranfield trec-eval … | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
