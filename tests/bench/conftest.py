"""Bench tests need the Arm cross compiler and QEMU; they skip, saying which, when either is absent."""

from __future__ import annotations

import shutil

import pytest

from micro_relay.examples.sine_model import build_sine_model

TOOLS = {"arm-none-eabi-gcc": "gcc-arm-none-eabi", "qemu-system-arm": "qemu-system-arm"}


@pytest.fixture(scope="session")
def arm_tools():
    missing = [f"{tool} (package {package})" for tool, package in TOOLS.items() if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"not on PATH: {', '.join(missing)}")


@pytest.fixture(scope="session")
def sine_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "sine.tflite"
    path.write_bytes(build_sine_model())
    return path
