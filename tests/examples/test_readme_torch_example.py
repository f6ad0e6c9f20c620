"""The README's PyTorch example runs as written and writes the C it promises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    example = next(b for b in blocks if "from_torch" in b)
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "README.md", "exec"), {})
    assert (tmp_path / "torch-out" / "net.c").exists() and (tmp_path / "torch-out" / "net.h").exists()
    printed = capsys.readouterr().out
    assert "bytes of arena; input shape (1, 28, 28, 1)" in printed
