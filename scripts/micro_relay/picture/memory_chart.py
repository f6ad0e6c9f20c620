"""The arena against the schedule: x is the step (the plan's operator order), y the arena offset (0 at the
bottom), each buffer a rectangle from its first to its last step over its bytes, labelled with its first tensor
and its size where it has room, every tensor it holds in its tooltip.

Shaded (hatched) are the blocks one kernel shares: a buffer several tensors share (a reshape's alias, an
in-place result) and the bytes a window kernel's output shares with its dying input (a lagged overlap,
plan/buffers.py step 4). Scratch is grey. The peak, the step where the live bytes reach the lower bound, is the
red column (PEAK)."""

from __future__ import annotations

from ..plan.buffers import overlap_pairs, peak_step
from ..plan.guards import LAYER_SLOT
from . import svg

PEAK = "#e00000"
SCRATCH = "#b4b4b4"
LEFT, TOP, WIDTH, HEIGHT, BOTTOM = 90, 40, 1100, 480, 50

HATCH = ('<defs><pattern id="shared" width="6" height="6" patternUnits="userSpaceOnUse" '
         'patternTransform="rotate(45)"><rect width="2" height="6" fill="#000" fill-opacity="0.3"/></pattern></defs>')


def step_x(step: float, steps: int) -> float:
    return LEFT + WIDTH * step / max(steps, 1)


def memory_chart(model) -> str:
    plan, graph = model.plan, model.graph
    steps, arena = len(plan.order), max(plan.arena_bytes, 1)
    buffers = list(plan.buffers)

    def y_of(offset: float) -> float:
        return TOP + HEIGHT - HEIGHT * offset / arena

    body = [HATCH, svg.rect(LEFT, TOP, WIDTH, HEIGHT, "#fafafa", extra='stroke="#444"')]
    labels = []  # drawn last, over the hatching
    for index, buf in enumerate(sorted(buffers, key=lambda b: (plan.offsets[b.name], b.first, b.name))):
        x0, x1 = step_x(buf.first, steps), step_x(buf.last + 1, steps)
        top, bottom = y_of(plan.offsets[buf.name] + buf.size), y_of(plan.offsets[buf.name])
        kind = "scratch" if not buf.tensors else "slot" if buf.name == LAYER_SLOT else "tensor"
        tensors = ", ".join(buf.tensors) if buf.tensors else buf.name
        tip = (f"{tensors}: {buf.size} B at offset {plan.offsets[buf.name]}, steps {buf.first}-{buf.last}")
        fill = SCRATCH if kind != "tensor" else svg.colour(index)
        body.append(svg.rect(x0, top, x1 - x0, max(bottom - top, 1), fill, tip, 'stroke="#555" stroke-width="0.5"'))
        if len(buf.tensors) > 1:
            body.append(svg.rect(x0, top, x1 - x0, max(bottom - top, 1), "url(#shared)"))
        if x1 - x0 > 50 and bottom - top > 14:
            label = _label(buf, int((x1 - x0 - 6) / 5.6))
            labels.append(svg.text(x0 + 3, top + 12, label if bottom - top > 26 else f"{label} {buf.size} B", 10))
            if bottom - top > 26:
                labels.append(svg.text(x0 + 3, top + 24, f"{buf.size} B", 10))
    for out, inp, _ in overlap_pairs(buffers):  # the bytes a lagged overlap shares
        low = max(plan.offsets[out.name], plan.offsets[inp.name])
        high = min(plan.offsets[out.name] + out.size, plan.offsets[inp.name] + inp.size)
        if high > low:
            x0 = step_x(max(out.first, inp.first), steps)
            body.append(svg.rect(x0, y_of(high), step_x(1, steps) - LEFT, y_of(low) - y_of(high), "url(#shared)",
                                 f"{out.name} over {inp.name}: {high - low} B shared", 'stroke="#000"'))
    body += labels + _axes(model, steps, arena, y_of)
    peak = peak_step(buffers)
    x0, x1 = step_x(peak, steps), step_x(peak + 1, steps)
    body.append(svg.rect(x0, TOP - 6, x1 - x0, HEIGHT + 6, "none", extra=f'stroke="{PEAK}" stroke-width="4"'))
    body.append(svg.rect(x0, TOP - 14, x1 - x0, 8, PEAK, f"peak: {plan.lower_bound} B live at step {peak}"))
    body.append(svg.text(min(x0, LEFT + WIDTH - 260), TOP - 20,
                         f"peak: {plan.lower_bound} B live at step {peak}", 12, extra=f'fill="{PEAK}"'))
    return svg.svg(LEFT + WIDTH + 20, TOP + HEIGHT + BOTTOM, body, f"arena of {model.name} against the schedule")


def _label(buf, chars: int) -> str:
    """The buffer's name ("scratch N", or its first tensor's first ';' part), its end kept when cut."""
    name = buf.name.strip("<>") if not buf.tensors else buf.tensors[0].split(";")[0]
    return name if len(name) <= chars else "\u2026" + name[len(name) - max(chars - 1, 3):]


def _axes(model, steps: int, arena: int, y_of) -> list[str]:
    out = []
    every = max(1, -(-steps // 40))
    for step in range(0, steps, every):
        x = (step_x(step, steps) + step_x(step + 1, steps)) / 2
        out.append(svg.text(x, TOP + HEIGHT + 14, str(step), 10, "middle"))
    out.append(svg.text(LEFT + WIDTH / 2, TOP + HEIGHT + 34, "schedule step", 12, "middle"))
    for k in range(5):
        offset = round(arena * k / 4)
        out.append(svg.line(LEFT - 4, y_of(offset), LEFT, y_of(offset), "#444"))
        out.append(svg.text(LEFT - 6, y_of(offset) + 4, f"{offset} B", 10, "end"))
    out.append(svg.text(14, TOP + HEIGHT / 2, "arena offset", 12, "middle",
                        f'transform="rotate(-90 14 {svg.num(TOP + HEIGHT / 2)})"'))
    return out
