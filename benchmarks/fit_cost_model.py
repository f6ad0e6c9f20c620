"""Fit the per-layer cost model (scripts/micro_relay/target/cost_model.py) to instructions measured on Cortex-M4.

Builds small single-layer int8 models covering every kernel path the model knows (conv2d im2col, pointwise and
pointwise with at most 8 channels; depthwise strip in C, 3x3 strip in assembly, window walk one channel at a
time and 4 outputs of an input channel a pass; dense in blocks of 4 units and one unit at a time), benches each
with `micro-relay bench --profile` on mps2-an386 (QEMU -icount: 1 instruction a tick), and fits each path's
coefficients by non-negative least squares on relative error (a layer of 2,000 instructions counts as much as
one of 2 M). Depthwise layers with a choice are measured on both paths by forcing
kernels/arm_dsp/depthwise_conv2d.uses_strip; layers whose kernel has variants (Kernel.variants, which the
compiler gives where the arena has room) are measured with them too: convolutions with the largest and the
smallest of their larger tiles (tile_pixels), depthwise strips rolling (rolling), so those costs are told
apart. Everything is compiled for --target cortex-m4. Writes scripts/micro_relay/target/cortex_m4_coefficients.json
and prints each fitted layer's estimate against its measurement, then the same for every layer of the shape family
(micro_relay.examples.shape_family, layer by layer: the shapes real networks have), which the fit does not see;
--models DIR also prints the shared models' (not fitted either). About four minutes.
The family is the check, not the fit: fitted on it too, the convolution paths' per-call constants came out a
third lower and their worst errors 3 to 6 times larger (18% for pointwise), and row by row, which prices every
call of a patch with them, then cut MobileNetV2-224 into 16x16 patches for 152 B at 1.34x the instructions.

    python3 benchmarks/fit_cost_model.py [--models DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.cortex_m_cases import options_on  # noqa: E402
from support.tflite_models import conv2d_model, depthwise_model, fully_connected_model  # noqa: E402

from micro_relay.bench.measure import bench_graph  # noqa: E402
from micro_relay.bench.build import find_tool, gcc_version  # noqa: E402
from micro_relay.compiler import prepare_graph  # noqa: E402
from micro_relay.examples.shape_family import FAMILY, build_family_model  # noqa: E402
from micro_relay.kernels.arm_dsp import depthwise_conv2d  # noqa: E402
from micro_relay.lower import lower  # noqa: E402
from micro_relay.plan.room import use_room  # noqa: E402
from micro_relay.target import cost_model as _cost  # noqa: E402

MACHINE = "mps2-an386"
TARGET = "cortex-m4"
ESTIMATED_OPS = ("nn.conv2d", "nn.depthwise_conv2d", "nn.dense")
SHARED = ("mlcommons_tiny/kws_ref_model.tflite", "mlcommons_tiny/ad01_int8.tflite",
          "mlcommons_tiny/pretrainedResnet_quant.tflite", "tflite_micro/person_detect.tflite")


def _conv(shape, oc, kernel=(3, 3), **kw):
    return conv2d_model(input_shape=shape, out_channels=oc, kernel=kernel, in_zp=-3, out_zp=2, **kw)


def _dw(shape, kernel=(3, 3), multiplier=1, **kw):
    return depthwise_model(input_shape=shape, kernel=kernel, depth_multiplier=multiplier, in_zp=-3, out_zp=2, **kw)


def _fc(shape, units, **kw):
    return fully_connected_model(input_shape=shape, units=units, **kw)


# (model bytes, forced uses_strip or None). Sizes span the shared models' layers: 4 to 256 channels, 3x3 to
# 10x8 windows, 9 to 1,024 output pixels.
CONV_IM2COL = [_conv((1, 16, 16, 16), 16), _conv((1, 12, 12, 32), 32), _conv((1, 8, 8, 64), 32),
               _conv((1, 16, 16, 16), 32, stride=(2, 2)), _conv((1, 16, 16, 3), 16), _conv((1, 32, 32, 3), 8),
               _conv((1, 25, 10, 1), 32, (10, 4), stride=(2, 2)), _conv((1, 16, 16, 8), 16, (5, 5)),
               _conv((1, 16, 16, 16), 32, (1, 1), stride=(2, 2)), _conv((1, 12, 12, 32), 64, (1, 1), stride=(2, 2)),
               _conv((1, 10, 10, 8), 8, dilation=(2, 2)), _conv((1, 8, 8, 4), 4), _conv((1, 20, 20, 6), 12),
               _conv((1, 40, 12, 1), 16, (10, 4), stride=(2, 2)), _conv((1, 20, 20, 1), 8, (5, 5)),
               _conv((1, 30, 10, 2), 16, (8, 4), stride=(2, 2))]
CONV_POINTWISE = [_conv((1, 10, 10, 20), 32, (1, 1)), _conv((1, 8, 8, 32), 32, (1, 1)),
                  _conv((1, 6, 6, 64), 64, (1, 1)), _conv((1, 5, 5, 128), 64, (1, 1)),
                  _conv((1, 12, 12, 24), 16, (1, 1)), _conv((1, 4, 4, 256), 32, (1, 1)),
                  _conv((1, 20, 5, 64), 64, (1, 1)), _conv((1, 3, 3, 128), 256, (1, 1)),
                  _conv((1, 9, 9, 48), 24, (1, 1)), _conv((1, 1, 1, 64), 4, (1, 1)), _conv((1, 2, 2, 32), 8, (1, 1))]
CONV_POINTWISE16 = [_conv((1, 10, 10, 16), 32, (1, 1)), _conv((1, 12, 12, 16), 16, (1, 1)),
                    _conv((1, 9, 9, 12), 24, (1, 1)), _conv((1, 24, 24, 16), 32, (1, 1)),
                    _conv((1, 8, 8, 9), 8, (1, 1)), _conv((1, 6, 6, 16), 96, (1, 1))]
CONV_POINTWISE8 = [_conv((1, 16, 16, 8), 16, (1, 1)), _conv((1, 12, 12, 4), 8, (1, 1)),
                   _conv((1, 10, 10, 3), 6, (1, 1)), _conv((1, 8, 8, 8), 32, (1, 1)),
                   _conv((1, 20, 20, 1), 4, (1, 1)), _conv((1, 6, 6, 8), 64, (1, 1))]
DW_3X3 = [_dw((1, 12, 12, 32)), _dw((1, 8, 8, 64)), _dw((1, 25, 5, 64)), _dw((1, 16, 16, 16), stride=(2, 2)),
          _dw((1, 6, 6, 128)), _dw((1, 24, 24, 8)), _dw((1, 24, 24, 1), multiplier=8, stride=(2, 2)),
          _dw((1, 12, 12, 4), multiplier=4), _dw((1, 3, 3, 256)),
          # large output scales: blocks the assembly cannot requantize (2 of 8, then all)
          _dw((1, 12, 12, 32), out_spread=0.05), _dw((1, 24, 24, 8), out_spread=0.01), _dw((1, 16, 16, 16), out_spread=0.05)]
# both paths measured on each: multiplier 1 and multiples of 4, windows other than 3x3 undilated
DW_CHOICE_1 = [_dw((1, 12, 12, 16), (5, 5)), _dw((1, 16, 16, 8), dilation=(2, 2)), _dw((1, 20, 10, 16), (5, 3)),
               _dw((1, 10, 10, 32), (5, 5), stride=(2, 2)), _dw((1, 16, 16, 16), (2, 2), stride=(2, 2)),
               _dw((1, 24, 12, 8), (7, 1))]
DW_CHOICE_4 = [_dw((1, 20, 16, 1), (10, 8), 8, stride=(2, 2)), _dw((1, 12, 12, 2), (5, 5), 4),
               _dw((1, 16, 16, 1), (5, 5), 4, stride=(2, 2)), _dw((1, 10, 10, 4), (3, 5), 8)]
# lanes gathered into the strip (dw_roll_gather): multipliers 2 and 3, and partial last blocks (5, 7, 27 channels)
DW_GATHERED = [_dw((1, 10, 10, 8), multiplier=2), _dw((1, 12, 12, 4), multiplier=3), _dw((1, 15, 15, 5)),
               _dw((1, 12, 12, 7), stride=(2, 2)), _dw((1, 25, 5, 27)), _dw((1, 16, 16, 3), multiplier=2)]
DW_CHOICE_GATHERED = [_dw((1, 12, 12, 6), (5, 5), 2), _dw((1, 1, 40, 6), (1, 5)), _dw((1, 16, 16, 12), dilation=(2, 2)),
                      _dw((1, 24, 12, 5), (7, 1))]
DENSE = [_fc((1, 64), 12), _fc((1, 128), 128), _fc((1, 640), 128), _fc((1, 8), 128), _fc((1, 128), 8),
         _fc((1, 256), 10), _fc((4, 32), 16), _fc((2, 100), 20), _fc((1, 64), 64, per_channel=True),
         _fc((1, 36), 7), _fc((1, 16), 2), _fc((1, 3), 8), _fc((1, 100), 1), _fc((2, 50), 3), _fc((1, 200), 2),
         _fc((1, 128), 32, per_channel=True), _fc((2, 48), 16, per_channel=True), _fc((1, 30), 8)]

CASES = ([(m, None) for m in CONV_IM2COL + CONV_POINTWISE + CONV_POINTWISE8 + CONV_POINTWISE16 + DW_3X3
          + DW_GATHERED + DENSE]
         + [(m, strip) for m in DW_CHOICE_1 + DW_CHOICE_4 + DW_CHOICE_GATHERED for strip in (True, False)])


@contextlib.contextmanager
def forced_strip(strip: bool | None):
    """Make every depthwise layer take (True) or skip (False) the strip; None leaves the compiler's choice."""
    if strip is None:
        yield
        return
    chosen = depthwise_conv2d.uses_strip
    depthwise_conv2d.uses_strip = lambda g: strip
    try:
        yield
    finally:
        depthwise_conv2d.uses_strip = chosen


def layer_shape(lowered, index: int):
    """The path the cost model prices this node's kernel at and the shape it prices (None, None: no estimate)."""
    low = lowered.nodes[index]
    estimate = low.kernel.estimate(lowered.target, lowered.graph, low.node, low.params, low.plan)
    if estimate is None:
        return None, None
    return estimate["path"], low.kernel.cost_shape(low.params, low.plan)


def forced_variants(path: Path) -> list[tuple[str, dict]]:
    """(op, kernel options) to measure a single-layer model with besides its default: the first and the last of
    its kernel's variants (for a convolution, its largest and its smallest larger tile)."""
    lowered = lower(prepare_graph(path), TARGET)
    (node,) = [n for n in lowered.nodes if n.node.op in ESTIMATED_OPS]
    variants = node.kernel.variants(lowered.target, lowered.graph, node.node, node.params, node.plan)
    return [(node.node.op, v) for i, v in enumerate(variants) if i in (0, len(variants) - 1)]


def measured_layers(path: Path, forced: tuple[str, dict] | None = None) -> list[tuple[str, object, int, str]]:
    """(kernel path, shape, measured instructions, name) of every estimated layer of one model; forced: (op,
    kernel options) set on its one node of that op first."""
    graph = prepare_graph(path)
    lowered, _ = use_room(lower(graph, TARGET, options=options_on(graph, *forced) if forced else None))
    options = {i: n.options for i, n in enumerate(lowered.nodes) if n.options}  # the room's choices, as compiled
    result = bench_graph(graph, path.stem, str(path), MACHINE, runs=1, profile=True, target=TARGET,
                         kernel_options=options, row_by_row="never")
    if not result["outputs_match"]:  # a kernel being edited: its counts still say what the code costs
        print(f"warning: {path.name}: outputs differ from the reference interpreter", file=sys.stderr)
    rows = []
    for layer in result["layers"]:
        node = graph.nodes[layer["node"]]
        if node.op in ESTIMATED_OPS:
            kernel, shape = layer_shape(lowered, layer["node"])
            if kernel is not None:
                rows.append((kernel, shape, layer["instructions"], f"{path.stem}/{node.name}"))
    return rows


def nonnegative_least_squares(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """min |a x - b| with x >= 0: least squares on the columns still allowed, dropping the most negative
    coefficient until none is (enough for a handful of columns)."""
    scale = np.linalg.norm(a, axis=0)
    scale[scale == 0] = 1.0
    active = [i for i in range(a.shape[1]) if np.any(a[:, i])]
    while True:
        x = np.zeros(a.shape[1])
        x[active] = np.linalg.lstsq(a[:, active] / scale[active], b, rcond=None)[0] / scale[active]
        if x.min() >= 0:
            return x
        active.remove(int(np.argmin(x)))


def fit(rows) -> dict:
    """Per path: coefficients minimizing relative error, and how well they fit."""
    paths = {}
    for path in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == path]
        names = list(_cost.features(path, mine[0][1]))
        a = np.array([[_cost.features(path, shape)[n] for n in names] for _, shape, _, _ in mine], float)
        y = np.array([m for _, _, m, _ in mine], float)
        x = nonnegative_least_squares(a / y[:, None], np.ones(len(y)))
        errors = a @ x / y - 1
        paths[path] = {"coefficients": {n: round(float(c), 5) for n, c in zip(names, x) if c > 0},
                       "layers": len(mine), "max_relative_error": round(float(np.abs(errors).max()), 4)}
    return paths


def show(rows, table: dict, title: str) -> None:
    print(f"\n{title}\n{'layer':48s} {'path':24s} {'measured':>10s} {'estimated':>10s} {'error':>7s}")
    for path, shape, measured, name in rows:
        estimate = _cost.instructions(path, shape, table)
        print(f"{name[:48]:48s} {path:24s} {measured:10d} {estimate:10d} {estimate / measured - 1:+7.1%}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, help="also compare with the shared models in DIR")
    parser.add_argument("--out", type=Path, default=_cost.COEFFICIENTS)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mr-cost-") as tmp:
        for index, (model, strip) in enumerate(CASES):
            path = Path(tmp) / f"layer{index:02d}.tflite"
            path.write_bytes(model)
            with forced_strip(strip):
                rows += measured_layers(path)
                for forced in forced_variants(path):
                    rows += measured_layers(path, forced)
        family = []
        for spec in FAMILY:
            path = Path(tmp) / f"{spec.name}.tflite"
            path.write_bytes(build_family_model(spec.name))
            family += measured_layers(path)
    data = {"machine": MACHINE, "command": "python3 benchmarks/fit_cost_model.py",
            "gcc": gcc_version(find_tool("arm-none-eabi-gcc", "gcc-arm-none-eabi")), "paths": fit(rows)}
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    show(rows, data, f"fitted layers ({args.out})")
    show(family, data, "shape family, layer by layer (not fitted)")
    if args.models:
        shared = [r for relative in SHARED if (args.models / relative).is_file()
                  for r in measured_layers(args.models / relative)]
        show(shared, data, "shared models (not fitted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
