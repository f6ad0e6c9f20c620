"""--name and --arena-section: a name that would collide with the runtime, a C header, a reserved identifier
or a keyword is refused with an alternative that works; a section name never reaches the C unchecked.
Each refusal: exit 2, one line naming what and where, nothing written."""

from __future__ import annotations

import pytest

from micro_relay.cli import main
from micro_relay.codegen.names import C_STANDARD_HEADERS, check_model_name, name_problem
from micro_relay.compiler import compile_graph, prepare_graph, runtime_stems
from micro_relay.errors import CompileError
from support.tflite_models import fully_connected_model


def compile_cli(capsys, *args) -> tuple[int, str]:
    code = main(["compile", *(str(a) for a in args)])
    return code, capsys.readouterr().err


def refused_with_hint(capsys, tmp_path, model, name: str, *fragments: str) -> str:
    """Refused with one line naming the problem and --name; returns the suggested name."""
    before = sorted(tmp_path.rglob("*"))
    code, err = compile_cli(capsys, model, "-o", tmp_path / "out", "--name", name)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: model name "), err
    assert lines[0].endswith("(--name)"), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert sorted(tmp_path.rglob("*")) == before
    return lines[0].split("; try --name ")[1].removesuffix(" (--name)")


def compiles_with(capsys, tmp_path, model, name: str) -> None:
    out = tmp_path / f"out_{name}"
    assert compile_cli(capsys, model, "-o", out, "--name", name)[0] == 0
    assert (out / f"{name}.c").is_file() and (out / f"{name}.h").is_file()


def test_runtime_prefix_would_overwrite_a_kernel(tmp_path, model, capsys):
    """--name mr_dense would write the model's mr_dense.c over the dense kernel it calls."""
    hint = refused_with_hint(capsys, tmp_path, model, "mr_dense", "starts with the runtime's prefix 'mr_'")
    assert hint == "dense_model"
    compiles_with(capsys, tmp_path, model, hint)
    for name in ("MR_dense", "mr", "Mr_x"):  # upper-cased, NAME becomes MR_... macros beside the runtime's
        refused_with_hint(capsys, tmp_path, model, name, "prefix 'mr_'")


@pytest.mark.parametrize("name", ["conv2d", "crt", "fixedpoint", "micro_relay", "micro_relay_cmsis_nn", "Dense"])
def test_runtime_file_stems(tmp_path, model, capsys, name):
    refused_with_hint(capsys, tmp_path, model, name, "would collide with the runtime's file")


def test_every_runtime_header_and_source_stem_is_refused():
    stems = runtime_stems()
    assert {"crt", "conv2d", "gemmlowp", "mr_conv2d", "micro_relay_cmsis_nn"} <= stems
    assert all(name_problem(stem, stems) for stem in stems)


@pytest.mark.parametrize("name", ["math", "string", "stdint", "assert", "errno", "Float", "stdbool", "time"])
def test_c_standard_headers(tmp_path, model, capsys, name):
    hint = refused_with_hint(capsys, tmp_path, model, name, f"would shadow the C standard header <{name.lower()}.h>")
    assert hint == f"{name}_model"
    if name == "math":
        compiles_with(capsys, tmp_path, model, hint)


def test_all_c99_headers_are_known():
    c99 = {"assert", "complex", "ctype", "errno", "fenv", "float", "inttypes", "iso646", "limits", "locale",
           "math", "setjmp", "signal", "stdarg", "stdbool", "stddef", "stdint", "stdio", "stdlib", "string",
           "tgmath", "time", "wchar", "wctype"}
    assert c99 <= C_STANDARD_HEADERS


@pytest.mark.parametrize("name, hint", [("_", "model"), ("__x", "x"), ("_X", "X"), ("_model", "model")])
def test_reserved_identifiers(tmp_path, model, capsys, name, hint):
    assert refused_with_hint(capsys, tmp_path, model, name, "starts with '_'") == hint


@pytest.mark.parametrize("name", ["int", "case", "while", "static", "bool", "true", "_Bool"])
def test_keywords(tmp_path, model, capsys, name):
    hint = refused_with_hint(capsys, tmp_path, model, name)
    assert name_problem(hint) is None
    if name == "int":
        compiles_with(capsys, tmp_path, model, hint)


def test_5000_character_name(tmp_path, model, capsys):
    hint = refused_with_hint(capsys, tmp_path, model, "n" * 5000, "is 5000 characters long (at most 64)")
    assert len(hint) <= 64
    compiles_with(capsys, tmp_path, model, hint)


@pytest.mark.parametrize("name", ["9 lives", "a-b", "x\ny", "name*/", ""])
def test_not_an_identifier(tmp_path, model, capsys, name):
    before = sorted(tmp_path.rglob("*"))
    code, err = compile_cli(capsys, model, "-o", tmp_path / "out", "--name", name)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "(--name)" in lines[0], err
    assert ("is empty" if not name else "is not a C identifier") in lines[0]
    assert sorted(tmp_path.rglob("*")) == before


def test_default_name_from_the_file_follows_the_rules(tmp_path, capsys):
    model = tmp_path / "math.tflite"
    model.write_bytes(fully_connected_model())
    code, err = compile_cli(capsys, model, "-o", tmp_path / "out")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "model name 'math' would shadow the C standard header <math.h>; try --name math_model (--name)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["math.tflite"]


def test_compile_graph_checks_names_for_api_callers(model):
    graph = prepare_graph(model)
    with pytest.raises(CompileError, match="starts with the runtime's prefix"):
        compile_graph(graph, "mr_conv2d", "fc.tflite")
    with pytest.raises(CompileError, match="not a linker section name"):
        compile_graph(graph, "fc", "fc.tflite", arena_section='.data")));int x;//')
    assert check_model_name("kws") == "kws"


@pytest.mark.parametrize("section", ['.x"', ".x)) int y; //", "1abc", "$x", ".a b", ".s\n", "", "." + "s" * 200])
def test_bad_arena_sections(tmp_path, model, capsys, section):
    before = sorted(tmp_path.rglob("*"))
    code, err = compile_cli(capsys, model, "-o", tmp_path / "out", "--arena-section", section)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].endswith("(--arena-section)"), err
    assert "section name" in lines[0]
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize("section", [".sram2", "_ram", ".bss.model$arena", ".noinit.x_1"])
def test_good_arena_sections_reach_the_c(tmp_path, model, capsys, section):
    out = tmp_path / "out"
    assert compile_cli(capsys, model, "-o", out, "--arena-section", section)[0] == 0
    assert f'MR_SECTION("{section}")' in (out / "fc.c").read_text()
