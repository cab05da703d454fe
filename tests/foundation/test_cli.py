from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cranfield.cli import main


def test_help_lists_the_program(capsys):
    assert main([]) == 0
    assert "usage: cranfield" in capsys.readouterr().out


def test_console_script_answers_help():
    script = Path(sys.executable).with_name("cranfield")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "Cranfield" in result.stdout
