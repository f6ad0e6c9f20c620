"""Which Python `make demo` and `make test` use: a project environment in .venv/ unless one is active or
PYTHON is given, so the README's commands never pip-install into a distribution's own python3 (PEP 668).
Read from `make -n`, which prints the recipe without running it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make on PATH")


def dry_run(target: str, **env: str) -> str:
    base = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHON", "VENV")}
    done = subprocess.run(["make", "-n", "-C", str(ROOT), target], env={**base, **env}, capture_output=True,
                          text=True, check=True)
    return done.stdout


def test_without_an_active_environment_the_project_venv_is_made_and_used():
    recipe = dry_run("demo", VENV="/nonexistent/env")
    assert "python3 -m venv /nonexistent/env" in recipe
    assert "/nonexistent/env/bin/python -m pip install -q -e ." in recipe
    assert "/nonexistent/env/bin/python -m micro_relay.demo" in recipe


def test_an_active_virtual_environment_is_used_as_it_is():
    recipe = dry_run("test", VIRTUAL_ENV="/opt/someone/env", VENV="/nonexistent/env")
    assert "-m venv" not in recipe and "/nonexistent/env" not in recipe
    assert "/opt/someone/env/bin/python -m pip install -q -r requirements-test.txt" in recipe
    assert "/opt/someone/env/bin/python -m pytest" in recipe


def test_python_given_on_the_command_line_wins():
    recipe = dry_run("demo", PYTHON="/usr/local/bin/python3.12", VIRTUAL_ENV="/opt/someone/env")
    assert "-m venv" not in recipe and "/opt/someone/env" not in recipe
    assert "/usr/local/bin/python3.12 -m micro_relay.demo" in recipe
