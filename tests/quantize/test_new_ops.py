"""The quantizer on the newer ops: each op alone (op_cases.py) and real networks' blocks (blocks.py).

The oracle for the quantized graph's integers is TFLite Micro: the quantized graph is written as a TFLite
model (tflite_export.py) and TFLite Micro's interpreter must give the reference interpreter's (and, for the
blocks, the compiled C's) outputs byte for byte. Closeness to the float graph is measured, not assumed: the
blocks report top-1 agreement with the float model on held-out inputs, the largest error in output steps and
the SQNR (`-s` prints them; the table in the module's last test's docstring is what was measured).
"""

from __future__ import annotations

import numpy as np
import pytest

from micro_relay.cli import main
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.ir.types import DType, Quant
from micro_relay.quantize import QuantizeOptions, quantize_with_report
from micro_relay.quantize.params import quantize_array
from micro_relay.quantize.rules import RULES
from micro_relay.reference import run

from support.tflm_oracle import tflm_run

from .blocks import BLOCKS, float_islands
from .graphs import samples
from .op_cases import CASES
from .support import assert_c_matches_reference, split
from .tflite_export import to_tflite

I8, I16 = DType.INT8, DType.INT16
NO_TFLM = {"tile"}  # TFLite Micro has no TILE; the output is checked against numpy's tile instead
LOW_SQNR = {"divide wide divisor [1,16]": 12.0,  # the output scale is narrowed to s1 / (64 s2): large quotients clip
            "sigmoid wide input [1,64]": 18.0,  # an int8 input step of ~6000 (inputs of +-8e5)
            "tanh tiny input [1,64]": -1.0}  # outputs of ~1e-10 are all 0 in steps of 2^-7 or 2^-15: 0 dB
MIN_SQNR_DB = 28.0


def assert_tflm_agrees(q, test: list[list[np.ndarray]], expected: list[list[np.ndarray]]) -> None:
    model = to_tflite(q)
    for index, (sample, ours) in enumerate(zip(test, expected)):
        theirs = tflm_run(model, sample, len(q.outputs))
        for k, (o, t) in enumerate(zip(ours, theirs)):
            t = np.asarray(t).reshape(o.shape)
            assert o.dtype == t.dtype and o.tobytes() == t.tobytes(), \
                f"sample {index} output {k}: ours {o.ravel()[:8]} vs TFLite Micro {t.ravel()[:8]}"


def assert_rule_policies(q) -> int:
    """Every integer node's output quantization is what its rule says; returns how many were checked."""
    checked = 0
    for node in q.nodes:
        rule = RULES.get(node.op)
        out = q.type_of(node.outputs[0])
        if rule is None or out.dtype.is_float:
            continue
        real = [q.type_of(n) for n in node.inputs if n and q.type_of(n).quant is not None]
        if out.quant is None:  # a comparison's bool, an argmax index
            assert out.dtype in (DType.BOOL, DType.INT32), node.label
        elif rule.output == "same_as_input":
            assert real[0].quant == out.quant, node.label
        elif rule.output == "equal_inputs":
            assert all(t.quant == out.quant for t in real), node.label
        elif rule.output == "fixed":
            assert out.quant == Quant.tensor(*(rule.fixed16 if out.dtype == I16 else rule.fixed)), node.label
        if out.dtype == I16:
            assert out.quant.zero_point == 0 and all(t.quant.zero_point == 0 for t in real
                                                     if t.dtype == I16), node.label
        checked += 1
    return checked


OP_RUNS = [(name, dtype) for name, (_, _, wide) in CASES.items()
           for dtype in (("int8", "int16") if wide else ("int8",))]


@pytest.mark.parametrize("case, dtype", OP_RUNS, ids=[f"{n}-{d}" for n, d in OP_RUNS])
def test_op_quantizes_as_tflite_micro_runs_it(case, dtype):
    make, draw, _ = CASES[case]
    graph = make()
    op = graph.nodes[-1].op
    options = QuantizeOptions(int16=(op,) if dtype == "int16" else ())
    q, report = quantize_with_report(graph, draw(graph, 32, 0), options)
    node = next(n for n in q.nodes if n.op == op)
    data = next(q.type_of(n) for n in node.inputs if q.type_of(n).quant is not None)
    assert data.dtype == (I16 if dtype == "int16" else I8)
    assert assert_rule_policies(q) >= 1
    for name, sqnr in report.outputs:
        assert sqnr > LOW_SQNR.get(case, MIN_SQNR_DB), f"{case} {dtype}: output {name} SQNR {sqnr:.1f} dB"
    held_out = split(draw(q, 4, 9), q)
    ours = [run(q, sample) for sample in held_out]
    if op in NO_TFLM:
        for sample, (out,) in zip(held_out, ours):
            x = quantize_array(sample[0], q.type_of(q.nodes[0].outputs[0]).quant)
            tiled = np.tile(x, node.attrs["reps"])
            np.testing.assert_array_equal(quantize_array(out, q.type_of(node.outputs[0]).quant), tiled)
        return
    assert_tflm_agrees(q, held_out, ours)


@pytest.mark.parametrize("case, op, bound", [("sigmoid wide input [1,64]", "sigmoid", 32767 / 12288),
                                             ("tanh tiny input [1,64]", "tanh", 2.0 ** -30 / 12288)])
def test_int16_sigmoid_and_tanh_input_scale_is_kept_in_range(case, op, bound):
    """Inputs of +-8e5 would need an int16 scale of ~25, inputs of +-5e-10 one of ~1.5e-14; int16 LOGISTIC and
    TANH take 2^-30 / 12288 to 32767 / 12288, so the quantizer requantizes the input to the nearer end (the
    values it clips all give the limits; the ones it rounds away are within 1e-13 of 0)."""
    make, draw, _ = CASES[case]
    graph = make()
    q, _ = quantize_with_report(graph, draw(graph, 8, 0), QuantizeOptions(int16=(op,)))
    node = next(n for n in q.nodes if n.op == op)
    np.testing.assert_allclose(q.type_of(node.inputs[0]).quant.scale, bound, rtol=1e-6)
    assert q.type_of(node.inputs[0]).quant.zero_point == 0
    assert q.type_of("x/int16").quant.scale != q.type_of(node.inputs[0]).quant.scale


def test_divide_output_scale_is_narrowed_to_what_the_kernel_allows():
    """int8 DIV needs s1 / (s2 so) >= 2^6: with a divisor in [0.25, 2] the calibrated output scale is too
    coarse by about 4x and the quantizer lowers it to the bound."""
    make, draw, _ = CASES["divide wide divisor [1,16]"]
    graph = make()
    q, _ = quantize_with_report(graph, draw(graph, 32, 0))
    node = next(n for n in q.nodes if n.op == "divide")
    a, b, out = (q.type_of(n).quant.scale for n in (*node.inputs, node.outputs[0]))
    ratio = a / (b * out)
    assert 64 <= ratio < 64 * 1.001


INT8_ONLY = [name for name, (_, _, wide) in CASES.items() if not wide]


@pytest.mark.parametrize("case", INT8_ONLY)
def test_int16_is_refused_where_tflite_micro_runs_int8_only(case):
    """elu, hard_swish, ... have no int16 kernel; max/min reductions, argmax, resize and most copies have
    ours, but TFLite Micro fails them on int16 (measured: REDUCE_MAX 'Only float32 and int8', SPACE_TO_DEPTH's
    Prepare check, no TILE at all), so --int16 is refused in one line."""
    make, draw, _ = CASES[case]
    graph = make()
    op = graph.nodes[-1].op
    assert not RULES[op].int16
    with pytest.raises(CompileError) as info:
        quantize_with_report(graph, draw(graph, 4, 0), QuantizeOptions(int16=(op,)))
    message = str(info.value)
    assert "\n" not in message and f"no int16 kernel for {op}; let it run in int8" in message


def block_metrics(graph, q, test) -> dict:
    """Agreement of the quantized graph with the float one on held-out samples: top-1 (per pixel for a
    segmenter), the largest and mean error in output steps, and the output SQNR."""
    name = graph.outputs[0]
    step = q.type_of(next(n for n in q.nodes if n.outputs[0] == name).inputs[0]).quant.scale
    f = np.stack([run(graph, s)[0] for s in test]).astype(np.float64)
    d = np.stack([run(q, s)[0] for s in test]).astype(np.float64)
    steps = np.abs(f - d) / step
    sqnr = 10 * np.log10(np.sum(f * f) / max(np.sum((f - d) ** 2), 1e-30))
    return {"top1": float((f.argmax(-1) == d.argmax(-1)).mean()), "max_steps": float(steps.max()),
            "mean_steps": float(steps.mean()), "sqnr_db": float(sqnr)}


# 48 calibration and 64 held-out samples (seeds 0 and 7), minmax, per channel; measured top-1 agreement,
# largest / mean error in output steps, SQNR:
#   mobilenet_v3   100.0%   4.9 / 0.70   35.6 dB      (hard_swish, hard-sigmoid squeeze-excite)
#   efficientnet    96.9%  10.1 / 0.84   34.2 dB      (sigmoid * x, sigmoid squeeze-excite)
#   shufflenet_v2   98.4%  13.9 / 0.65   38.0 dB      (split, concatenate, channel shuffle)
#   unet            98.9%   8.8 / 0.65   30.6 dB      (per pixel; resize, conv2d_transpose, concatenate)
#   maxout_select   96.9%  23.5 / 1.03   22.8 dB      (a select flips where the comparison is near its edge)
MIN_TOP1 = {"mobilenet_v3": 0.95, "efficientnet": 0.9, "shufflenet_v2": 0.95, "unet": 0.95, "maxout_select": 0.9}


@pytest.mark.parametrize("block", BLOCKS)
def test_block_quantizes_close_to_float_and_matches_tflite_micro(block, tmp_path):
    """Every node of the block runs in int8 (nothing is left in float), the C is bit-exact with the reference
    interpreter and TFLite Micro on the exported model agrees byte for byte; with int8 I/O too."""
    make, scale = BLOCKS[block]
    graph = make()
    calibration = samples(graph, 48, seed=0, scale=scale)
    q, _ = quantize_with_report(graph, calibration)
    assert [n.op for n in q.nodes if n.op not in ("qnn.quantize", "qnn.dequantize")
            and q.type_of(n.outputs[0]).dtype == DType.FLOAT32] == []
    assert assert_rule_policies(q) >= len(graph.nodes) - 2
    held_out = split(samples(q, 64, seed=7, scale=scale), q)
    compiled = assert_c_matches_reference(q, held_out[:8], tmp_path)
    assert_tflm_agrees(q, held_out[:8], compiled)
    metrics = block_metrics(graph, q, held_out)
    print(f"\n{block}: top-1 agreement {100 * metrics['top1']:.1f}%, max error {metrics['max_steps']:.1f} steps "
          f"(mean {metrics['mean_steps']:.2f}), SQNR {metrics['sqnr_db']:.1f} dB on {len(held_out)} inputs")
    assert metrics["top1"] >= MIN_TOP1[block], metrics

    q8, _ = quantize_with_report(graph, calibration, QuantizeOptions(int8_io=True), report=False)
    rng = np.random.default_rng(3)
    ints = [[rng.integers(-128, 128, q8.type_of(n).shape).astype(np.int8) for n in q8.inputs] for _ in range(4)]
    assert_tflm_agrees(q8, ints, [run(q8, s) for s in ints])


KEPT = ("layer_norm", "gelu", "gru", "negative", "exp", "log", "erf")


def test_ops_without_integer_kernels_stay_float(tmp_path):
    """float_islands (blocks.py): without --keep-float the one-line refusal names all seven ops; with it they
    run in float between one dequantize (after the int8 reshape, which follows the dense) and one quantize
    (before the int8 dense), the GRU's weights stay float, and the C matches the reference interpreter."""
    graph = float_islands()
    with pytest.raises(CompileError) as info:
        quantize_with_report(graph, samples(graph, 4, seed=0))
    message = str(info.value)
    assert "\n" not in message
    assert "no int8 kernel for ops erf, exp, log, negative, nn.gelu, nn.gru, nn.layer_norm" in message
    assert "--keep-float nn.gru" in message
    q, report = quantize_with_report(graph, samples(graph, 32, seed=0), QuantizeOptions(keep_float=KEPT))
    assert [(n.op, q.type_of(n.outputs[0]).dtype) for n in q.nodes] == [
        ("qnn.quantize", I8), ("nn.dense", I8), ("reshape", I8), ("qnn.dequantize", DType.FLOAT32),
        *[(op, DType.FLOAT32) for op in ("nn.layer_norm", "nn.gelu", "nn.gru", "negative", "exp", "log", "erf")],
        ("qnn.quantize", I8), ("nn.dense", I8), ("qnn.dequantize", DType.FLOAT32)]
    gru = next(n for n in q.nodes if n.op == "nn.gru")
    assert all(q.type_of(n).dtype == DType.FLOAT32 for n in gru.inputs)
    assert dict(report.outputs)["logits"] > MIN_SQNR_DB
    assert_c_matches_reference(q, split(samples(q, 4, seed=7), q), tmp_path)


def float_tflite(path):
    """x[1,8,8,4] ─ CONV_2D 8 ─ HARD_SWISH ─ RESIZE_NEAREST_NEIGHBOR 16x16 ─┐
                └ RESIZE_BILINEAR 16x16 (half pixel) ───────────── CONCATENATION ─ MAXIMUM -0.2 ─ MEAN ─
    FULLY_CONNECTED 5 ─► y, float32, seeded weights; 16 calibration samples beside it."""
    rng = np.random.default_rng(12)
    b = TFLiteBuilder()

    def const(name, data, dtype="float32"):
        data = np.asarray(data, dtype)
        return b.tensor(name, data.shape, dtype, data=data)

    def act(name, shape):
        return b.tensor(name, shape, "float32")

    x, size = act("x", (1, 8, 8, 4)), const("size", [16, 16], "int32")
    b.op("CONV_2D", [x, const("w", rng.standard_normal((8, 3, 3, 4)) * 0.3), const("b", np.zeros(8))],
         [act("c", (1, 8, 8, 8))], padding="SAME")
    b.op("HARD_SWISH", ["c"], [act("h", (1, 8, 8, 8))])
    b.op("RESIZE_NEAREST_NEIGHBOR", ["h", size], [act("up", (1, 16, 16, 8))])
    b.op("RESIZE_BILINEAR", [x, size], [act("ux", (1, 16, 16, 4))], half_pixel_centers=True)
    b.op("CONCATENATION", ["up", "ux"], [act("cat", (1, 16, 16, 12))], axis=3)
    b.op("MAXIMUM", ["cat", const("floor", [-0.2])], [act("m", (1, 16, 16, 12))])
    b.op("MEAN", ["m", const("axes", [1, 2], "int32")], [act("p", (1, 12))])
    b.op("FULLY_CONNECTED", ["p", const("w2", rng.standard_normal((5, 12)) * 0.3), const("b2", np.zeros(5))],
         [act("y", (1, 5))])
    path.write_bytes(b.inputs(x).outputs("y").build())
    np.save(path.with_suffix(".npy"), rng.standard_normal((16, 1, 8, 8, 4)).astype(np.float32))
    return path, path.with_suffix(".npy")


def test_cli_quantizes_a_float_tflite_model_with_new_ops(tmp_path, capsys):
    model, calibration = float_tflite(tmp_path / "net.tflite")
    out = tmp_path / "out"
    code = main(["compile", str(model), "-o", str(out), "--quantize", "int8", "--calibration", str(calibration)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "kept in float" not in err and "nn.hard_swish int8" in " ".join(err.split())
    source = (out / "net.c").read_text()
    for call in ("mr_conv2d_s8", "mr_lut_s8(", "mr_resize_nearest(", "mr_resize_bilinear_s8(", "mr_concatenate(",
                 "mr_maximum_s8(", "mr_mean_s8(", "mr_dense_s8"):
        assert call in source, call
    assert "_f32(" not in source.replace("mr_quantize_f32_s8(", "")


def test_int8_tanh_input_scale_is_at_least_two_to_the_minus_28():
    """Below 2^-28 TFLite Micro's int8 TANH and LOGISTIC overflow their int input radius and saturate every
    input (measured: +-1 where 0 is right); the quantizer requantizes such an input to 2^-28, same zero point."""
    make, draw, _ = CASES["tanh tiny input [1,64]"]
    graph = make()
    q, _ = quantize_with_report(graph, draw(graph, 8, 0))
    node = next(n for n in q.nodes if n.op == "tanh")
    before, after = q.type_of("x/int8").quant, q.type_of(node.inputs[0]).quant
    assert before.scale < 2.0 ** -28 and after == Quant.tensor(2.0 ** -28, before.zero_point)
