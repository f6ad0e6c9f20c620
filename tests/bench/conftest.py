"""Bench tests need the Arm cross compiler and QEMU (the arm_tools fixture, tests/conftest.py); they skip, saying
which, when either is absent."""

from __future__ import annotations

import pytest

from micro_relay.examples.sine_model import build_sine_model


@pytest.fixture(scope="session")
def sine_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "sine.tflite"
    path.write_bytes(build_sine_model())
    return path
