from __future__ import annotations

import pytest

from .elfs import build_elf, section_sizes, strip


@pytest.fixture(scope="session")
def elf(tmp_path_factory):
    return build_elf(tmp_path_factory.mktemp("elf"))


@pytest.fixture(scope="session")
def sizes(elf):
    return section_sizes(elf)


@pytest.fixture(scope="session")
def stripped_elf(elf, tmp_path_factory):
    return strip(elf, tmp_path_factory.mktemp("stripped") / "stripped.elf")
