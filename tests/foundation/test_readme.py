"""Every command README.md shows runs as written on a fresh clone once ``dev.py run``/``test`` made .venv.

Commands are the lines of its ```sh blocks and the inline `code` that starts with python, dev.py,
cranfield or curl. Each must start with something a fresh machine has (``python3.11 dev.py``,
``.venv/bin/…``, curl, docker, cp; never a bare ``python`` or ``cranfield``, which need .venv on
the PATH); a ``dev.py`` subcommand must exist; a ``manage`` / ``manage.py`` command must be in
Django's command list; a ``cranfield`` subcommand must exist and accept every ``--option`` shown;
a project path must exist; a curl URL must resolve and its body must be JSON; and a ``cranfield``
command without placeholders is run. Upper-case words (QRELS, ARGS) are placeholders.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
import shlex
import textwrap

import pytest

from tests.conftest import PROJECT_DIR

README = (PROJECT_DIR / "README.md").read_text()
STARTS = ("python", "dev.py", "cranfield", "curl", ".venv/")
RUNNABLE_STARTS = (
    "python3.11 dev.py ",
    ".venv/bin/",
    "curl ",
    "docker ",
    "cp ",
    "TOKEN=$(python3.11 ",
    "PROJECT=$(curl ",
)


def sh_commands() -> list[str]:
    """Logical command lines of the ```sh blocks: comments dropped, continuations joined."""
    commands: list[str] = []
    for block in re.findall(r"^( *)```sh\n(.*?)^\1```", README, flags=re.M | re.S):
        continued = False
        for line in textwrap.dedent(block[1]).splitlines():
            line = re.sub(r"\s+#\s.*$", "", line)
            if not line.strip() or line.startswith("#"):
                continue
            if continued or line[0].isspace():
                commands[-1] = f"{commands[-1].removesuffix(chr(92)).rstrip()} {line.strip()}"
            else:
                commands.append(line.strip())
            continued = line.rstrip().endswith("\\")
    return commands


def inline_commands() -> list[str]:
    prose = re.sub(r"^( *)```.*?^\1```", "", README, flags=re.M | re.S)
    spans = re.findall(r"`([^`\n]+)`", prose)
    return [span for span in spans if len(span.split()) > 1 and span.split()[0].startswith(STARTS)]


COMMANDS = sh_commands() + inline_commands()


def is_placeholder(word: str) -> bool:
    return bool(re.fullmatch(r"[A-Z][A-Z_]*(\.[a-z]+|\.\.\.)?", word)) or word.startswith(("[", "<"))


def test_the_readme_shows_the_commands_we_check():
    assert "python3.11 dev.py test" in COMMANDS and "python3.11 dev.py manage export_qrels 1" in COMMANDS
    assert any(c.startswith("curl ") for c in COMMANDS)
    assert sum(" dev.py cranfield " in f" {c} " for c in COMMANDS) >= 8


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_starts_with_what_a_fresh_clone_has(command):
    assert command.startswith(RUNNABLE_STARTS) or command in {"dev.py test"}, (
        f"{command!r} needs .venv on the PATH: write python3.11 dev.py manage … / dev.py cranfield … instead"
    )


def dev_script_commands():
    import importlib.util

    spec = importlib.util.spec_from_file_location("dev_script", PROJECT_DIR / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_dev_py_subcommands_exist(command):
    for subcommand in re.findall(r"dev\.py (\S+)", command):
        assert is_placeholder(subcommand) or subcommand in dev_script_commands(), command


@pytest.mark.parametrize("command", COMMANDS)
def test_manage_commands_exist_in_django(command):
    from django.core.management import get_commands

    for name in re.findall(r"(?:dev\.py manage|manage\.py) (\S+)", command):
        assert is_placeholder(name) or name in get_commands(), f"{command!r}: no manage.py command {name!r}"


def cranfield_help(subcommand: str) -> str:
    from cranfield.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_info:
        main([subcommand, "--help"])
    assert exit_info.value.code == 0, f"cranfield has no subcommand {subcommand!r}"
    return out.getvalue()


def cranfield_arguments(command: str) -> list[str] | None:
    """The arguments after ``cranfield`` in ``command``, if it names a subcommand."""
    match = re.search(r"(?:dev\.py cranfield|\.venv/bin/cranfield) (.*)", command)
    arguments = shlex.split(match.group(1).split(" > ")[0]) if match else []
    return arguments if arguments and not is_placeholder(arguments[0]) else None


@pytest.mark.parametrize("command", [c for c in COMMANDS if cranfield_arguments(c)])
def test_cranfield_subcommands_and_options_exist(command):
    subcommand, *rest = cranfield_arguments(command)
    usage = cranfield_help(subcommand)
    for option in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", " ".join(rest)):
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", usage), f"{command!r}: {option} unknown"


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.startswith(("python3.11", ".venv/bin/"))])
def test_project_paths_exist(command):
    for word in shlex.split(command.split(" > ")[0]):
        if "/" in word and not word.startswith(("-", "http", ".venv/")) and not is_placeholder(word):
            assert (PROJECT_DIR / word).exists(), f"{command!r}: {word} is not in the project"


@pytest.mark.parametrize(
    "command",
    [
        c
        for c in sh_commands()
        if cranfield_arguments(c) and not any(map(is_placeholder, cranfield_arguments(c)))
    ],
)
def test_concrete_cranfield_commands_run(command, monkeypatch, capsys):
    from cranfield.cli import main

    monkeypatch.chdir(PROJECT_DIR)
    assert main(cranfield_arguments(command)) == 0, capsys.readouterr().err
    if cranfield_arguments(command)[0] == "trec-eval":  # the README says: byte for byte trec_eval's out.test
        assert capsys.readouterr().out == (PROJECT_DIR / "tests/data/trec_eval_tests/out.test").read_text()


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.startswith(("curl ", "PROJECT=$(curl "))])
def test_curl_urls_resolve_and_bodies_are_json(command):
    from django.urls import resolve

    # The shell's variables as a reader's shell would fill them: a token, the project just made.
    words = shlex.split(
        command.replace("$TOKEN", "token").replace("$PROJECT", "7").removeprefix("PROJECT=$(")
    )
    urls = [w for w in words if w.startswith("http://127.0.0.1:8000/")]
    assert len(urls) == 1, command
    resolve(urls[0].removeprefix("http://127.0.0.1:8000"))
    for flag, value in itertools.pairwise(words):
        if flag == "-d":
            json.loads(value)
        if flag == "-H":
            assert re.fullmatch(r"[\w-]+: \S.*", value), value


def test_the_readme_names_every_aggregation_method():
    """Found on the way (issue 25, item 7): the README listed three of the ten methods."""
    from annotation.crowd.aggregation.methods import METHODS

    listed = re.search(r"# aggregate's METHOD: (.*?)\npython", README, flags=re.S)
    assert listed, "the README's aggregate usage lost its METHOD list"
    names = re.findall(r"[a-z][a-z-]+[a-z]", re.sub(r"\(.*?\)|#", " ", listed.group(1)))
    assert sorted(names) == sorted(METHODS)


def test_the_readme_says_no_option_is_missing_that_a_command_has():
    """Found on the way (issue 25, item 7): it said ``aggregate`` had no ``--duplicates`` flag."""
    from cranfield.cli import commands

    claimed_missing = re.findall(r"no `(--[\w-]+)` (?:flag|option)", README)
    helps = " ".join(cranfield_help(command) for command in commands())
    assert not [option for option in claimed_missing if re.search(rf"{option}(?![\w-])", helps)]
