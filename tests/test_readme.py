"""The README's two commands are the contract with a new machine: keep .ci/run on them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section, re.S)


def test_readme_starts_with_the_two_commands() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    setup, tests = commands
    assert "pip install torch==2.13.0" in setup and "codeloupe index ." in setup
    assert "codeloupe search" in setup
    assert "pytest" in tests and "pip install torch==2.13.0" in tests


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] in ci.splitlines()
