"""The C API of a model with state: NAME_reset() restores the initial outputs, NAME_invoke_with_state runs on
a caller's state (set by NAME_reset_state) independently of the model's own, a NULL or misaligned state is
refused, and the header reports the state's bytes. A model without state keeps the API it had."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from micro_relay.compiler import compile_graph, write_output
from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.types import DType, TensorType
from micro_relay.passes import run_pipeline
from support.c_harness import STRICT_FLAGS

VEC = TensorType((1, 4), DType.FLOAT32)

MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "counter.h"

static uint8_t arena[COUNTER_ARENA_SIZE] MR_ALIGNED(COUNTER_ARENA_ALIGN);
static uint8_t mine[COUNTER_STATE_BYTES + 1] MR_ALIGNED(COUNTER_STATE_ALIGN);

static float run_static(void)
{
    float y[4];
    const float x[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    memcpy(counter_input(0), x, sizeof x);
    if (counter_invoke() != MR_OK) { return -1.0f; }
    memcpy(y, counter_output(0), sizeof y);
    return y[0];
}

static float run_mine(void)
{
    float y[4];
    const float x[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    memcpy(counter_input_of(arena, 0), x, sizeof x);
    if (counter_invoke_with_state(arena, mine) != MR_OK) { return -1.0f; }
    memcpy(y, counter_output_of(arena, 0), sizeof y);
    return y[0];
}

int main(void)
{
    float a = run_static(), b = run_static(), c = run_static(), d, e, f, g;
    counter_reset();
    d = run_static();
    if (counter_reset_state(mine) != MR_OK) { return 2; }
    e = run_mine();
    f = run_mine();
    g = run_static();
    printf("%g %g %g %g %g %g %g\n", (double)a, (double)b, (double)c, (double)d, (double)e, (double)f, (double)g);
    printf("%d %d %d %d\n", counter_reset_state(NULL), counter_reset_state(mine + 1),
           counter_invoke_with_state(arena, NULL), counter_invoke_with_state(arena, mine + 1));
    return 0;
}
"""


def counter(start: float) -> Graph:
    """y = x + s + 1; s = s + 1, starting from `start`."""
    tensors = [Tensor("x", VEC), Tensor("one", VEC, np.ones((1, 4), np.float32)),
               Tensor("s", VEC, initial=np.full((1, 4), start, np.float32)), Tensor("s1", VEC), Tensor("y", VEC)]
    nodes = [Node("add", ("s", "one"), ("s1",)), Node("assign", ("s", "s1"), ()), Node("add", ("x", "s1"), ("y",))]
    return run_pipeline(Graph({t.name: t for t in tensors}, nodes, ("x",), ("y",)))


@pytest.mark.parametrize("start", [0.0, 5.0], ids=["zero initial state (bss)", "nonzero initial state"])
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_reset_restores_the_initial_outputs(tmp_path, start, cc):
    if subprocess.run(["which", cc], capture_output=True).returncode:
        pytest.skip(f"{cc} is not installed")
    write_output(compile_graph(counter(start), "counter", "test graph"), tmp_path)
    (tmp_path / "main.c").write_text(MAIN)
    exe = tmp_path / "prog"
    flags = [*STRICT_FLAGS, "-Wconversion", "-Wshadow", "-O2"]
    build = subprocess.run([cc, *flags, "-I", str(tmp_path), *map(str, sorted(tmp_path.glob("*.c"))), "-o",
                            str(exe), "-lm"], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    values, statuses = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    first = 1 + start + 1
    # static: 3 invokes, reset, 1 invoke; caller's state from its reset: 2 invokes; static goes on from 1
    assert [float(v) for v in values.split()] == [first, first + 1, first + 2, first, first, first + 1, first + 1]
    assert statuses.split() == ["3"] * 4  # MR_ERR_ARENA


def test_header_reports_state_bytes_and_stateless_models_keep_their_api(tmp_path):
    header = compile_graph(counter(0.0), "counter", "t").files["counter.h"]
    assert "#define COUNTER_STATE_BYTES 16" in header and "#define COUNTER_STATE_ALIGN 16" in header
    for fn in ("void counter_reset(void);", "int counter_reset_state(void *state);",
               "int counter_invoke_with_state(void *arena, void *state);"):
        assert fn in header
    plain = Graph({"x": Tensor("x", VEC), "y": Tensor("y", VEC)}, [Node("nn.relu", ("x",), ("y",))], ("x",), ("y",))
    files = compile_graph(run_pipeline(plain), "plain", "t").files
    assert "STATE" not in files["plain.h"] and "state" not in files["plain.c"] and "reset" not in files["plain.h"]


PARTITION = "data_smem_micro_relay_partition_bss"  # Zephyr's zeroed section of K_APP_BMEM(micro_relay_partition)


@pytest.mark.parametrize("group", [None, "audio"], ids=["own arena", "arena group member"])
@pytest.mark.parametrize("section,state_in", [(PARTITION, PARTITION), (".noinit.models", ".bss")],
                         ids=["partition section", "noinit section"])
def test_the_state_follows_the_arena_into_a_partition(tmp_path, group, section, state_in):
    """A user-mode thread that runs the model writes its state and the state's reset flag: they go with the
    arena into a partition's zeroed section; into a section that may not be zeroed at boot they do not."""
    from elftools.elf.elffile import ELFFile

    from micro_relay.compiler import group_files

    model = compile_graph(counter(5.0), "counter", "test graph", arena_section=section, arena_group=group)
    write_output(model, tmp_path)
    for file, text in (group_files(group, {"counter": model.plan.arena_bytes}, section) if group else {}).items():
        (tmp_path / file).write_text(text)
    obj = tmp_path / "counter.o"
    subprocess.run(["gcc", *STRICT_FLAGS, "-O2", "-I", str(tmp_path), "-c", str(tmp_path / "counter.c"), "-o",
                    str(obj)], check=True)
    with open(obj, "rb") as handle:
        elf = ELFFile(handle)
        placed = {s.name: elf.get_section(s["st_shndx"]).name for s in elf.get_section_by_name(".symtab").iter_symbols()
                  if s.name.startswith("counter_state") and isinstance(s["st_shndx"], int)}
    assert placed == {"counter_state": state_in, "counter_state_ready": state_in}, placed
