"""The few SVG pieces the pictures draw, as text: everything escaped, numbers rounded, so a page is the same
bytes for the same plan."""

from __future__ import annotations

from html import escape


def num(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def rect(x: float, y: float, width: float, height: float, fill: str, title: str = "", extra: str = "") -> str:
    tip = f"<title>{escape(title)}</title>" if title else ""
    return (f'<rect x="{num(x)}" y="{num(y)}" width="{num(width)}" height="{num(height)}" fill="{fill}"'
            f'{" " + extra if extra else ""}>{tip}</rect>')


def text(x: float, y: float, content: str, size: int = 11, anchor: str = "start", extra: str = "") -> str:
    return (f'<text x="{num(x)}" y="{num(y)}" font-size="{size}" text-anchor="{anchor}"'
            f'{" " + extra if extra else ""}>{escape(content)}</text>')


def line(x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 1, extra: str = "") -> str:
    return (f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" stroke="{stroke}" '
            f'stroke-width="{num(width)}"{" " + extra if extra else ""}/>')


def svg(width: float, height: float, body: list[str], label: str) -> str:
    return (f'<svg width="{num(width)}" height="{num(height)}" viewBox="0 0 {num(width)} {num(height)}" '
            f'role="img" aria-label="{escape(label)}">\n' + "\n".join(body) + "\n</svg>")


def colour(index: int) -> str:
    """A light fill for buffer `index`: hues spaced by the golden angle, so neighbours differ."""
    hue = (index * 137.508) % 360
    return f"hsl({num(hue)}, 55%, 72%)"
