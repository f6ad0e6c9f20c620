"""The bench's cycle figures from the plugin's regions: the runner measures an empty call first, then each run,
so every run's counts are its region's less the empty call's (the markers and the call itself)."""

from __future__ import annotations

from ...errors import CompileError
from .timing import CycleModel, instructions


def run_counts(regions: list[dict[str, int]], runs: int, where: str) -> list[dict[str, int]]:
    """Each run's class counts, the empty call's taken off."""
    if len(regions) != runs + 1:
        raise CompileError(f"the QEMU plugin saw {len(regions)} regions, the runner measured {runs + 1}", where)
    empty = regions[0]
    return [{name: n - empty.get(name, 0) for name, n in region.items()} for region in regions[1:]]


def cycle_fields(regions: list[dict[str, int]], runs: int, model: CycleModel, where: str) -> dict:
    """cycles_estimate (the fastest run), per run, the method, and the fastest run's class counts and
    instruction total (which must equal the bench's own instruction count)."""
    counts = run_counts(regions, runs, where)
    per_run = [model.cycles(c) for c in counts]
    fastest = counts[per_run.index(min(per_run))]
    return {"cycles_estimate": min(per_run), "cycles_estimate_per_run": per_run, "cycle_model": model.method,
            "instruction_classes": fastest, "instructions_by_plugin": instructions(fastest)}


def cycle_setup(core: str, qemu: str):
    """(the core's CycleModel, the built Plugin), or the reason the bench gives no cycle figure."""
    from .plugin import cycle_plugin
    from .timing import model_for

    model = model_for(core)
    if model is None:
        return f"no cycle model for {core}"
    plugin = cycle_plugin(qemu)
    return plugin if isinstance(plugin, str) else (model, plugin)
