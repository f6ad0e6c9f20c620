"""Fixtures of the CLI tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.tflite_models import fully_connected_model


@pytest.fixture
def model(tmp_path) -> Path:
    """A small int8 fully connected model in a folder of its own (tmp_path/models/fc.tflite), so a test can
    list what a compile leaves beside the output folder."""
    path = tmp_path / "models" / "fc.tflite"
    path.parent.mkdir()
    path.write_bytes(fully_connected_model())
    return path
