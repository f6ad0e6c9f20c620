"""Properties over every named shape and planner: the lower bound never exceeds the arena, plans are
deterministic (also across PYTHONHASHSEED values), and the report says what the plan holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from micro_relay.plan import plan_memory
from micro_relay.plan.buffers import live_bytes
from micro_relay.plan.planners import PLANNERS
from micro_relay.plan.report import plan_report

from . import shapes

TESTS_DIR = Path(__file__).resolve().parents[1]


def summary(plan) -> dict:
    return {"order": list(plan.order), "order_name": plan.order_name, "planner": plan.planner,
            "arena": plan.arena_bytes, "offsets": sorted(plan.offsets.items()),
            "buffers": [[b.name, b.size, b.first, b.last, list(b.tensors)] for b in plan.buffers]}


@pytest.mark.parametrize("planner", sorted(PLANNERS) + ["all"])
@pytest.mark.parametrize("shape", sorted(shapes.SHAPES))
def test_lower_bound_and_arena(shape, planner):
    build, arena = shapes.SHAPES[shape]
    plan = plan_memory(build(), planners=None if planner == "all" else (planner,))
    assert plan.lower_bound <= plan.arena_bytes == arena
    assert plan.lower_bound == max(live_bytes(list(plan.buffers)))


@pytest.mark.parametrize("shape", sorted(shapes.SHAPES))
def test_same_plan_twice(shape):
    build, _ = shapes.SHAPES[shape]
    assert summary(plan_memory(build())) == summary(plan_memory(build()))


SNIPPET = """
import json, sys
sys.path.insert(0, sys.argv[1])
from plan import shapes
from micro_relay.plan import plan_memory
out = {}
for name, (build, _) in sorted(shapes.SHAPES.items()):
    p = plan_memory(build())
    out[name] = [list(p.order), p.order_name, p.planner, p.arena_bytes, sorted(p.offsets.items())]
print(json.dumps(out, sort_keys=True))
"""


def test_plans_do_not_depend_on_hash_seed():
    results = []
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", SNIPPET, str(TESTS_DIR)], env=env, capture_output=True,
                              text=True, check=True)
        results.append(json.loads(done.stdout))
    assert results[0] == results[1] == results[2]
    assert results[0]["diamond"][3] == 1500


def test_report_of_the_residual_block():
    """shapes.residual_block: x, a and b are live together at step 2 (the lower bound, 2200); y shares b's
    buffer but has its own first use (step 3)."""
    graph = shapes.residual_block()
    plan = plan_memory(graph)
    report = plan_report("res", graph, plan, "test")
    assert json.loads(json.dumps(report)) == report
    assert (report["arena_bytes"], report["lower_bound_bytes"], report["lower_bound_step"]) == (2200, 2200, 2)
    assert sorted(b["buffer"] for b in report["live_at_lower_bound"]) == ["a", "b", "x"]
    rows = {t["name"]: t for t in report["tensors"]}
    assert set(rows) == {"in", "x", "a", "b", "y", "out"}
    assert {k: rows["y"][k] for k in ("bytes", "first_use", "last_use", "buffer")} == \
        {"bytes": 1000, "first_use": 3, "last_use": 4, "buffer": "b"}
    assert (rows["b"]["first_use"], rows["b"]["last_use"]) == (2, 3)
    assert rows["y"]["offset"] == rows["b"]["offset"] == plan.tensor_offset("y")
    assert report["order"] == "model" and report["planner"] == plan.planner
    assert [c["order"] for c in report["candidates"]] == list(("model", "memory_greedy", "depth_first", "peak_search"))


def test_unknown_order_name_is_rejected():
    with pytest.raises(ValueError, match="no_such_order"):
        plan_memory(shapes.linear_chain(), orders=("no_such_order",))
