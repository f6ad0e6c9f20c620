"""The memory picture (`micro-relay report MODEL -o plan.html`): one self-contained HTML page, inline SVG and
CSS, no script and nothing fetched, showing the arena offset of every buffer against the schedule step, the
peak, and per-layer MACs (and instructions or cycles from a bench or device profile) as bars.

svg.py draws, memory_chart.py lays out the arena, layer_bars.py the per-layer bars, page.py puts them on a page
and writes it, cli.py is the command."""
