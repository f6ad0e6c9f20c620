"""Shared pytest setup: the reference models folder, the Arm tools, and hypothesis profiles."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
SHARED_MODELS = Path(os.environ.get("MICRO_RELAY_MODELS", ROOT.parent / "shared" / "models"))

settings.register_profile("ci", max_examples=12, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=500, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("MICRO_RELAY_HYPOTHESIS_PROFILE", "ci"))


ARM_TOOLS = {"arm-none-eabi-gcc": "gcc-arm-none-eabi", "qemu-system-arm": "qemu-system-arm"}


@pytest.fixture(scope="session")
def arm_tools():
    """Tests that build for Cortex-M and run under QEMU skip, saying which tool is missing, without them."""
    missing = [f"{tool} (package {package})" for tool, package in ARM_TOOLS.items() if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"not on PATH: {', '.join(missing)}")


@pytest.fixture(scope="session")
def shared_models() -> Path:
    if not SHARED_MODELS.is_dir():
        pytest.skip(f"reference models folder {SHARED_MODELS} is absent (set MICRO_RELAY_MODELS)")
    return SHARED_MODELS


def shared_model(relative: str) -> Path:
    path = SHARED_MODELS / relative
    if not path.is_file():
        pytest.skip(f"reference model {relative} is absent from {SHARED_MODELS}")
    return path
