"""The memory picture's page: a heading with the plan's figures, the arena chart, the per-layer bars and a
legend, in one HTML file with inline CSS and SVG (no script, no link, nothing fetched)."""

from __future__ import annotations

import json
import os
import secrets
from html import escape
from pathlib import Path

from ..errors import CompileError
from ..plan.buffers import peak_step
from .layer_bars import MACS, MEASURED, layer_bars
from .memory_chart import PEAK, SCRATCH, memory_chart

STYLE = ("body{font-family:sans-serif;margin:16px;background:#fff;color:#222}h1{font-size:20px;margin:0 0 4px}"
         "p{margin:4px 0 10px;font-size:13px}.key span{display:inline-block;width:12px;height:12px;"
         "margin:0 4px 0 14px;vertical-align:middle;border:1px solid #555}")


def read_profile(path: str) -> tuple[dict[int, int], str]:
    """step -> count from `micro-relay bench --profile` or `micro-relay device profile --json` output."""
    try:
        data = json.loads(Path(path).read_text())
        unit = data.get("unit", "instructions")
        counts = {int(row["step"]): int(row[unit]) for row in data["layers"]}
    except OSError as exc:
        raise CompileError(f"cannot read the profile: {exc.strerror or exc}", path) from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise CompileError("not the JSON of micro-relay bench --profile or device profile --json", path) from None
    return counts, unit


def page(model, measured: dict[int, int] | None = None, unit: str = "instructions") -> str:
    plan = model.plan
    heading = (f"{model.name}: arena {plan.arena_bytes} B, lower bound {plan.lower_bound} B at step "
               f"{peak_step(list(plan.buffers))}, {len(plan.order)} steps, target {model.target.name}"
               f"{', debug build' if plan.guards else ''}")
    key = "".join(f'<span style="background:{c}"></span>{escape(t)}' for c, t in (
        (PEAK, "peak"), (SCRATCH, "scratch"), ("#ddd;background-image:repeating-linear-gradient(45deg,#888 0 2px,"
                                               "transparent 2px 6px)", "shared block (alias, in place, overlap)"),
        (MACS, "MACs"), *(((MEASURED, unit),) if measured else ())))
    return (f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(model.name)} memory plan"
            f"</title><style>{STYLE}</style></head>\n<body>\n<h1>{escape(heading)}</h1>\n"
            f"<p class=\"key\">{key}</p>\n{memory_chart(model)}\n<p>per layer</p>\n"
            f"{layer_bars(model, measured, unit)}\n</body></html>\n")


def write_page(text: str, path: str) -> None:
    """Written beside the target and renamed: a failed write leaves nothing behind."""
    target = Path(path)
    temporary = target.with_name(f".mr-{target.name[:16]}-{secrets.token_hex(4)}")
    try:
        if target.is_dir():
            raise CompileError("the output path is a directory", path)
        with open(temporary, "x", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, target)
    except OSError as exc:
        try:
            temporary.unlink()
        except OSError:
            pass
        raise CompileError(f"cannot write the page: {exc.strerror or exc}", path) from None
