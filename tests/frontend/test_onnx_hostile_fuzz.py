"""Seeded mutations of the project's own ONNX test models (float exports of tests/support/torch_models and
QDQ int8 ones, per-tensor and per-channel): protobuf field mutations (dims, data types, data, attributes,
wiring, node order, operator types, inputs and outputs, versions, quantization parameters) and byte flips.
Every mutated file either compiles (exit 0, the one summary line) or is refused with exit 2, exactly one
`error:` line on stderr (file-descriptor level) and no output folder; never a traceback, never a crash.

The default run compiles MICRO_RELAY_FUZZ_FILES files (200); set it higher for a long run (and
MICRO_RELAY_FUZZ_SEED to vary the seed). Run with -s to see the per-class counts.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto  # noqa: E402
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static  # noqa: E402
from support import torch_models  # noqa: E402

from micro_relay.cli import main  # noqa: E402
from micro_relay.frontend.relax.importers import SUPPORTED_ONNX_OPS  # noqa: E402

FILES = int(os.environ.get("MICRO_RELAY_FUZZ_FILES", "200"))
SEED = int(os.environ.get("MICRO_RELAY_FUZZ_SEED", "13"))
SECONDS_PER_FILE = 120  # a hang is a failure too (checked between Python bytecodes)

HOSTILE_INTS = [0, 1, -1, 2, 3, 7, 255, 65536, 2**31 - 1, 2**31, 2**32 + 1, 2**62, 2**63 - 1, -2**63]
HOSTILE_FLOATS = [0.0, -0.0, -1.0, 1.0, 1e-45, 1e-38, 3.0e38, float("inf"), float("-inf"), float("nan")]
HOSTILE_NAMES = ["", "ghost", "a\nb", "/* c */", "x" * 300]
OTHER_OPS = sorted(SUPPORTED_ONNX_OPS) + ["Det", "Loop", "ConstantOfShape", "Tile", "Expand", "Pad", "Shape"]


class _Samples(CalibrationDataReader):
    def __init__(self, samples):
        self._it = iter([{"input": x} for x in samples])

    def get_next(self):
        return next(self._it, None)


@pytest.fixture(scope="module")
def seed_models(tmp_path_factory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("fuzz_seeds")
    models = {}
    for name in ("mlp", "ds_kws", "conv1d_audio"):
        module, shape, _ = torch_models.build(name)
        models[name] = torch_models.export_onnx(module, shape, folder / f"{name}.onnx").read_bytes()
    module, shape, _ = torch_models.build("mlp")
    float_path = torch_models.export_onnx(module, shape, folder / "mlp_float.onnx")
    for per_channel in (False, True):
        qdq = folder / f"mlp_qdq_{per_channel}.onnx"
        quantize_static(str(float_path), str(qdq), _Samples(torch_models.samples(shape, 8, seed=7)),
                        quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                        per_channel=per_channel)
        models["mlp_qdq_per_channel" if per_channel else "mlp_qdq"] = qdq.read_bytes()
    return models


# -- mutations: each changes the model in place and says what it did --------------------------------------

def _pick(rng, items):
    return items[int(rng.integers(len(items)))]


def _initializer(model, rng):
    return _pick(rng, list(model.graph.initializer))


def mutate_dims(model, rng):
    init = _initializer(model, rng)
    if init.dims and rng.random() < 0.7:
        axis = int(rng.integers(len(init.dims)))
        init.dims[axis] = _pick(rng, HOSTILE_INTS)
        return f"initializer {init.name!r} dims[{axis}] = {init.dims[axis]}"
    init.dims.append(_pick(rng, HOSTILE_INTS)) if rng.random() < 0.5 or not init.dims else init.dims.pop()
    return f"initializer {init.name!r} dims = {list(init.dims)}"


def mutate_data_type(model, rng):
    init = _initializer(model, rng)
    init.data_type = int(_pick(rng, list(range(0, 30)) + [99, 2**31 - 1]))
    return f"initializer {init.name!r} data_type = {init.data_type}"


def mutate_data(model, rng):
    init = _initializer(model, rng)
    if init.HasField("raw_data") and init.raw_data and rng.random() < 0.4:
        cut = int(rng.integers(len(init.raw_data)))
        init.raw_data = init.raw_data[:cut]
        return f"initializer {init.name!r} raw_data cut to {cut} bytes"
    array = onnx.numpy_helper.to_array(init).copy()
    if array.size == 0:
        return "no change (empty initializer)"
    flat = array.reshape(-1)
    index = int(rng.integers(flat.size))
    if np.issubdtype(flat.dtype, np.floating):
        flat[index] = _pick(rng, HOSTILE_FLOATS)
    else:
        info = np.iinfo(flat.dtype)
        flat[index] = _pick(rng, [info.min, info.max, 0, -1 if info.min < 0 else 1])
    init.CopyFrom(onnx.numpy_helper.from_array(array, init.name))
    if rng.random() < 0.3 and flat.dtype in (np.int8, np.uint8):  # typed field with values past the type
        init.ClearField("raw_data")
        init.int32_data[:] = [int(v) for v in flat] if rng.random() < 0.5 else [1000] * flat.size
    return f"initializer {init.name!r}[{index}] = {flat[index]}"


def mutate_attribute(model, rng):
    nodes = [n for n in model.graph.node if n.attribute]
    if not nodes:
        return "no change (no attributes)"
    node = _pick(rng, nodes)
    attr = _pick(rng, list(node.attribute))
    if attr.type == onnx.AttributeProto.INTS and attr.ints:
        attr.ints[int(rng.integers(len(attr.ints)))] = _pick(rng, HOSTILE_INTS)
    elif attr.type == onnx.AttributeProto.INT:
        attr.i = _pick(rng, HOSTILE_INTS)
    elif attr.type == onnx.AttributeProto.FLOAT:
        attr.f = _pick(rng, HOSTILE_FLOATS)
    elif attr.type == onnx.AttributeProto.STRING:
        attr.s = _pick(rng, [b"", b"SAME_UPPER", b"VALID", b"\xff\xfe", b"wrap"])
    elif attr.type == onnx.AttributeProto.TENSOR:
        attr.t.dims.append(_pick(rng, HOSTILE_INTS))
    else:
        attr.type = int(rng.integers(0, 15))
    return f"node {node.name!r} attribute {attr.name!r} changed"


def _tensor_names(model):
    names = [i.name for i in model.graph.input] + [i.name for i in model.graph.initializer]
    return names + [o for n in model.graph.node for o in n.output]


def mutate_wiring(model, rng):
    node = _pick(rng, list(model.graph.node))
    field = node.input if (rng.random() < 0.6 and node.input) or not node.output else node.output
    index = int(rng.integers(len(field)))
    field[index] = _pick(rng, _tensor_names(model) + HOSTILE_NAMES)
    return f"node {node.name!r} edge {index} = {field[index]!r}"


def mutate_node_order(model, rng):
    nodes = list(model.graph.node)
    kind = _pick(rng, ["swap", "delete", "duplicate"])
    i, j = int(rng.integers(len(nodes))), int(rng.integers(len(nodes)))
    if kind == "swap":
        nodes[i], nodes[j] = nodes[j], nodes[i]
    elif kind == "delete":
        del nodes[i]
    else:
        nodes.insert(j, nodes[i])
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return f"{kind} nodes {i}, {j}"


def mutate_op_type(model, rng):
    node = _pick(rng, list(model.graph.node))
    node.op_type = _pick(rng, OTHER_OPS)
    return f"node {node.name!r} op_type = {node.op_type}"


def mutate_io(model, rng):
    graph = model.graph
    kind = _pick(rng, ["input dim", "input type", "output name", "output removed", "extra output"])
    if kind == "input dim":
        dims = graph.input[0].type.tensor_type.shape.dim
        dims[int(rng.integers(len(dims)))].dim_value = _pick(rng, HOSTILE_INTS[:-1] + [0])
    elif kind == "input type":
        graph.input[0].type.tensor_type.elem_type = int(rng.integers(0, 30))
    elif kind == "output name":
        graph.output[0].name = _pick(rng, _tensor_names(model) + HOSTILE_NAMES)
    elif kind == "output removed":
        del graph.output[:]
    else:
        graph.output.add().CopyFrom(onnx.helper.make_tensor_value_info(_pick(rng, _tensor_names(model)),
                                                                      TensorProto.FLOAT, None))
    return kind


def mutate_versions(model, rng):
    if rng.random() < 0.5:
        model.ir_version = _pick(rng, [v for v in HOSTILE_INTS if v >= 0] + [4, 8, 10])
        return f"ir_version = {model.ir_version}"
    model.opset_import[0].version = _pick(rng, [v for v in HOSTILE_INTS] + [5, 6, 10, 13, 21])
    return f"opset = {model.opset_import[0].version}"


def mutate_quantization(model, rng):
    q_inputs = {(n.input[k], k) for n in model.graph.node if n.op_type in ("QuantizeLinear", "DequantizeLinear")
                for k in (1, 2) if len(n.input) > k}
    inits = {i.name: i for i in model.graph.initializer}
    targets = sorted((name, k) for name, k in q_inputs if name in inits)
    if not targets:
        return mutate_data(model, rng)
    name, k = _pick(rng, targets)
    init = inits[name]
    array = onnx.numpy_helper.to_array(init).copy()
    if k == 1:
        array.reshape(-1)[0] = _pick(rng, HOSTILE_FLOATS)
        init.CopyFrom(onnx.numpy_helper.from_array(array, name))
        return f"scale {name!r} = {array.reshape(-1)[0]}"
    init.ClearField("raw_data")
    init.int32_data[:] = [int(_pick(rng, [-129, 128, 1000, 2**31 - 1, -2**31]))] * array.size
    return f"zero point {name!r} int32_data = {init.int32_data[0]}"


FIELD_MUTATIONS = {f.__name__.removeprefix("mutate_"): f for f in (
    mutate_dims, mutate_data_type, mutate_data, mutate_attribute, mutate_wiring, mutate_node_order,
    mutate_op_type, mutate_io, mutate_versions, mutate_quantization)}
CLASSES = [*FIELD_MUTATIONS, "byte_flips"]


def _byte_flips(seed: bytes, rng) -> tuple[bytes, str]:
    data = bytearray(seed)
    positions = rng.integers(0, len(data), size=int(rng.integers(1, 9)))
    for pos in positions:
        data[pos] = int(rng.integers(0, 256))
    return bytes(data), f"bytes {sorted(int(p) for p in positions)}"


def _field_mutation(seed: bytes, kind: str, rng) -> tuple[bytes, str]:
    model = onnx.load_model_from_string(seed)
    what = FIELD_MUTATIONS[kind](model, rng)
    return model.SerializeToString(), what


class _Hang(Exception):
    pass


def _origin(exc: BaseException) -> str:
    """The innermost micro_relay source file the exception passed through, relative to the package."""
    origin = ""
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename.replace("\\", "/")
        if "/micro_relay/" in filename:
            origin = filename.rsplit("/micro_relay/", 1)[1]
        tb = tb.tb_next
    return origin


def _alarm(signum, frame):
    raise _Hang()


def test_mutated_onnx_models_compile_or_fail_with_one_line(seed_models, tmp_path, capfd):
    rng = np.random.default_rng(SEED)
    names = sorted(seed_models)
    counts = {kind: Counter() for kind in CLASSES}
    failures = []
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for index in range(FILES):
            kind = CLASSES[index % len(CLASSES)]
            seed_name = names[(index // len(CLASSES)) % len(names)]
            if kind == "byte_flips":
                data, what = _byte_flips(seed_models[seed_name], rng)
            else:
                data, what = _field_mutation(seed_models[seed_name], kind, rng)
            path = tmp_path / f"f{index}.onnx"
            path.write_bytes(data)
            out = tmp_path / f"out{index}"
            signal.alarm(SECONDS_PER_FILE)
            try:
                code = main(["compile", str(path), "-o", str(out), "--name", "m"])
            except BaseException as exc:  # noqa: BLE001 - every escape is a finding
                code = f"{type(exc).__name__} from {_origin(exc)}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
            finally:
                signal.alarm(0)
            captured = capfd.readouterr()
            lines = captured.err.strip().splitlines()
            compiled = lines[:1] and lines[0].startswith("compiled ") and all(  # and the schedule it chose
                line.startswith("  row by row: ") for line in lines[1:]) and len(lines) <= 2
            if code == 0 and compiled and (out / "m.c").exists():
                counts[kind]["compiled"] += 1
            elif code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and not out.exists() \
                    and captured.out == "":
                counts[kind]["refused"] += 1
            else:
                counts[kind]["failed"] += 1
                failures.append(f"{seed_name} {kind} ({what}): exit {code}, stderr {captured.err[-300:]!r}")
            path.unlink()
    finally:
        signal.signal(signal.SIGALRM, previous)
    print(f"\nONNX mutation run: {FILES} files, seed {SEED}")
    for kind in CLASSES:
        c = counts[kind]
        print(f"  {kind:14} tried {sum(c.values()):5}  refused {c['refused']:5}  compiled {c['compiled']:5}  "
              f"failed {c['failed']:4}")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:30])
    assert sum(c["refused"] for c in counts.values()) > 0 and sum(c["compiled"] for c in counts.values()) > 0
