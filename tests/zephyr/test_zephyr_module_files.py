"""The module's face to Zephyr and west: zephyr/module.yml against Zephyr's own schema, the manifest's
import allowlist, and the west extension command declaration."""

from __future__ import annotations

import ast
import sys

import pytest

from zephyr_env import REPO, zephyr_base


def load_yaml(path):
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(path.read_text())


def test_module_yml_passes_zephyrs_schema():
    base = zephyr_base()
    sys.path.insert(0, str(base / "scripts"))
    try:
        import zephyr_module
    finally:
        sys.path.pop(0)
    from pykwalify.core import Core

    meta = load_yaml(REPO / "zephyr" / "module.yml")
    Core(source_data=meta, schema_data=zephyr_module.schema).validate(raise_exception=True)
    assert (meta["build"]["cmake"], meta["build"]["kconfig"]) == ("zephyr", "zephyr/Kconfig")
    for folder in meta["samples"] + meta["tests"]:
        assert (REPO / folder).is_dir(), folder
    for requirements in meta["package-managers"]["pip"]["requirement-files"]:
        assert (REPO / requirements).is_file(), requirements


def test_manifest_imports_only_the_needed_modules():
    manifest = pytest.importorskip("west.manifest", reason="west is not installed")
    data = load_yaml(REPO / "west.yml")
    parsed = manifest.Manifest.from_data(data, import_flags=manifest.ImportFlag.IGNORE)
    (zephyr,) = [p for p in parsed.projects if p.name == "zephyr"]
    assert zephyr.revision.startswith("v4.")
    allowlist = data["manifest"]["projects"][0]["import"]["name-allowlist"]
    assert sorted(allowlist) == ["cmsis", "cmsis-nn", "picolibc"]
    assert data["manifest"]["self"]["west-commands"] == "scripts/west-commands.yml"


def test_west_command_declaration():
    spec = load_yaml(REPO / "scripts" / "west-commands.yml")
    (entry,) = spec["west-commands"]
    source = REPO / entry["file"]
    classes = {node.name for node in ast.walk(ast.parse(source.read_text())) if isinstance(node, ast.ClassDef)}
    (command,) = entry["commands"]
    assert command["name"] == "micro-relay" and command["class"] in classes
