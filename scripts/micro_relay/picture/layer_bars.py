"""Per-layer bars on the memory chart's step axis: MACs (blue) and, given a measured profile, instructions or
cycles (orange), each scaled to its own largest layer; the values are in the tooltips."""

from __future__ import annotations

from ..ir.registry import get_op
from . import svg
from .memory_chart import LEFT, WIDTH, step_x

MACS, MEASURED = "#3b6fb6", "#e08a00"
TOP, HEIGHT, BOTTOM = 30, 160, 30


def layer_bars(model, measured: dict[int, int] | None, unit: str) -> str:
    graph, order = model.graph, model.plan.order
    steps = len(order)
    macs = [int(get_op(graph.nodes[i].op).macs(graph, graph.nodes[i])) for i in order]
    series = [("MACs", macs, MACS)]
    if measured:
        series.append((unit, [measured.get(s, 0) for s in range(steps)], MEASURED))
    body = [svg.rect(LEFT, TOP, WIDTH, HEIGHT, "#fafafa", extra='stroke="#444"')]
    slot = (step_x(1, steps) - LEFT) / (len(series) + 1)
    for k, (name, values, fill) in enumerate(series):
        top = max(max(values, default=0), 1)
        for step, value in enumerate(values):
            node = graph.nodes[order[step]]
            h = HEIGHT * value / top
            body.append(svg.rect(step_x(step, steps) + slot * (k + 0.5), TOP + HEIGHT - h, slot, h, fill,
                                 f"step {step} {node.op} {node.name}: {value} {name}"))
        body.append(svg.rect(LEFT + 10 + 160 * k, 8, 12, 12, fill))
        body.append(svg.text(LEFT + 26 + 160 * k, 18, f"{name} (largest {top})", 11))
    every = max(1, -(-steps // 40))
    for step in range(0, steps, every):
        x = (step_x(step, steps) + step_x(step + 1, steps)) / 2
        body.append(svg.text(x, TOP + HEIGHT + 14, str(step), 10, "middle"))
    return svg.svg(LEFT + WIDTH + 20, TOP + HEIGHT + BOTTOM, body, f"per-layer work of {model.name}")
