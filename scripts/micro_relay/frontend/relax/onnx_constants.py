"""Constant folding on the ONNX graph itself, before apache-tvm imports it.

Exporters compute shape-like values at run time: PyTorch's F.pad becomes Constant -> ConstantOfShape ->
Concat -> Reshape -> Slice -> Transpose -> Reshape -> Cast -> Pad, and Relax's importer refuses a Pad whose
pads are not constants. With every input shape static, such chains are constants: each node whose inputs
are all known (initializers, Constant outputs, or the Shape of a tensor whose shape is static) is evaluated
once with onnx's own reference evaluator and becomes an initializer. Nodes that read runtime data are kept
as they are; so are nodes whose result would be large (only small shape-like values are folded, at most
MAX_FOLDED_ELEMENTS, so weights are never duplicated).

A node is evaluated only when its result is known to be small before it is computed: from the shape
inference gave its output, or from a bound on what its inputs can produce. Operators whose output size comes
from input values (ConstantOfShape, Expand, Tile, Range, ...) are bounded from those values; a hostile
model's ConstantOfShape([65536, 65536]) is then never allocated, it stays a node (and is refused later as an
operator Micro Relay does not take).
"""

from __future__ import annotations

import numpy as np

MAX_FOLDED_ELEMENTS = 4096
NEVER_FOLD = frozenset({"QuantizeLinear", "DequantizeLinear", "If", "Loop", "Scan", "RandomNormal",
                        "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial"})


# Operators whose output size is not bounded by the product of their inputs' sizes: it comes from input values
# (ConstantOfShape's shape, Tile's repeats) or attributes (a Conv's pads, a ConvTranspose's strides).
_SIZE_FROM_VALUES = frozenset({
    "ConstantOfShape", "Expand", "Tile", "Range", "Pad", "Resize", "Upsample", "OneHot", "CenterCropPad", "Col2Im",
    "MelWeightMatrix", "STFT", "DFT", "HannWindow", "HammingWindow", "BlackmanWindow", "EyeLike", "Bernoulli",
    "TfIdfVectorizer", "AffineGrid", "RoiAlign", "MaxRoiPool", "MaxUnpool", "Conv", "ConvTranspose", "ConvInteger",
    "QLinearConv", "DeformConv", "AveragePool", "MaxPool", "LpPool", "RandomNormal", "RandomUniform"})


def _static_shapes(model, input_shapes: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
    """Static shapes of graph inputs (as given) and of every tensor onnx's shape inference can fix."""
    shapes = {name: tuple(dims) for name, dims in input_shapes.items()}
    shapes.update((name, dims) for name, (dims, _) in static_types(model, input_shapes).items())
    return shapes


def static_types(model, input_shapes: dict[str, list[int]]) -> dict[str, tuple[tuple[int, ...], int]]:
    """(static shape, ONNX element type) of every tensor onnx's shape inference can fix, with the graph inputs
    given `input_shapes`."""
    import onnx

    types = {}
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    del fixed.graph.value_info[:]  # shapes computed from inputs, weights and attributes, not the file's claims
    for out in fixed.graph.output:
        out.type.tensor_type.ClearField("shape")
    for inp in fixed.graph.input:
        if inp.name in input_shapes:
            dims = inp.type.tensor_type.shape.dim
            for d, value in zip(dims, input_shapes[inp.name]):
                d.Clear()
                d.dim_value = int(value)
    try:
        inferred = onnx.shape_inference.infer_shapes(fixed)
    except Exception:  # inference is a help here, not a requirement
        return types
    for info in (*inferred.graph.value_info, *inferred.graph.output):
        dims = info.type.tensor_type.shape.dim
        if dims and all(d.HasField("dim_value") for d in dims):
            types[info.name] = (tuple(int(d.dim_value) for d in dims), info.type.tensor_type.elem_type)
    return types


def _size(shape) -> int:
    return int(np.prod([max(int(d), 0) for d in shape], dtype=object)) if len(shape) else 1


def _small_result(node, known: dict[str, np.ndarray], shapes: dict[str, tuple[int, ...]]) -> bool:
    """True when each of the node's outputs is known, before evaluating it, to hold at most MAX_FOLDED_ELEMENTS
    (from its inputs' values, the shapes inference computed, or the product of its inputs' sizes)."""
    values = [known[n] for n in node.input if n]
    if node.op_type in _SIZE_FROM_VALUES:
        bound = _value_bound(node.op_type, values)
    else:  # broadcasting, outer products, gathers and concatenation give at most the product of input sizes
        bound = 1
        for v in values:
            bound *= max(int(np.asarray(v).size), 1)
    if bound <= MAX_FOLDED_ELEMENTS:
        return True
    outputs = [name for name in node.output if name]
    return all(name in shapes and _size(shapes[name]) <= MAX_FOLDED_ELEMENTS for name in outputs)


def _value_bound(op: str, values: list[np.ndarray]) -> int:
    """Output elements of a _SIZE_FROM_VALUES operator, from its inputs; more than MAX_FOLDED_ELEMENTS when not
    worked out here (such a node is not folded)."""
    unknown = MAX_FOLDED_ELEMENTS + 1
    try:
        if op == "ConstantOfShape" and values:
            return _size(values[0].reshape(-1))
        if op == "Expand" and len(values) == 2:
            a, b = list(values[0].shape), [int(d) for d in values[1].reshape(-1)]
            rank = max(len(a), len(b))
            a, b = [1] * (rank - len(a)) + a, [1] * (rank - len(b)) + b
            return _size([max(x, y) for x, y in zip(a, b)])
        if op == "Tile" and len(values) == 2:
            return int(values[0].size) * _size(values[1].reshape(-1))
        if op == "Range" and len(values) == 3:
            start, limit, delta = (float(v.reshape(-1)[0]) for v in values)
            return unknown if delta == 0 or not np.isfinite([start, limit, delta]).all() else \
                max(int(np.ceil((limit - start) / delta)), 0)
        if op == "Pad" and len(values) >= 2:
            shape, pads = values[0].shape, [int(p) for p in values[1].reshape(-1)]
            if len(pads) != 2 * len(shape):
                return unknown
            return _size([d + pads[i] + pads[i + len(shape)] for i, d in enumerate(shape)])
    except (ValueError, TypeError, OverflowError, IndexError):
        return unknown
    return unknown


def fold_onnx_constants(model, input_shapes: dict[str, list[int]], rounds: int = 4):
    """A copy of the model with its constant subgraphs folded into initializers (the input is not changed).
    Folding can make more shapes static (a Pad whose pads became constants), so shape inference and folding
    repeat until nothing changes."""
    for _ in range(rounds):
        folded = _fold_once(model, input_shapes)
        if folded is model:
            break
        model = folded
    return model


def _foldable(value) -> bool:
    """A small numeric array: something an initializer can hold and the importer reads as a constant."""
    if not isinstance(value, np.ndarray) and not np.isscalar(value):
        return False
    value = np.asarray(value)
    return value.size <= MAX_FOLDED_ELEMENTS and (value.dtype == np.bool_ or np.issubdtype(value.dtype, np.number))


def _fold_once(model, input_shapes: dict[str, list[int]]):
    import onnx
    from onnx import numpy_helper
    from onnx.reference import ReferenceEvaluator

    known: dict[str, np.ndarray] = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    shapes = _static_shapes(model, input_shapes)
    kept, folded = [], {}
    for node in model.graph.node:
        if node.op_type == "Shape" and len(node.input) == 1 and node.input[0] in shapes and len(node.attribute) == 0 \
                and len(node.output) == 1 and node.output[0]:
            value = np.array(shapes[node.input[0]], dtype=np.int64)
        elif node.op_type not in NEVER_FOLD and node.domain in ("", "ai.onnx") \
                and all(not name or name in known for name in node.input) and _small_result(node, known, shapes):
            try:
                value = ReferenceEvaluator(node).run(None, {n: known[n] for n in node.input if n})
            except Exception:  # anything the evaluator cannot run stays a node
                kept.append(node)
                continue
            if len(value) != len(node.output) or not all(_foldable(v) for v in value):
                kept.append(node)
                continue
            for name, v in zip(node.output, value):
                known[name] = folded[name] = np.asarray(v)
            continue
        else:
            kept.append(node)
            continue
        known[node.output[0]] = folded[node.output[0]] = value
    if not folded:
        return model
    result = onnx.ModelProto()
    result.CopyFrom(model)
    del result.graph.node[:]
    result.graph.node.extend(kept)
    used = {name for node in kept for name in node.input} | {o.name for o in model.graph.output}
    result.graph.initializer.extend(numpy_helper.from_array(v, name) for name, v in folded.items() if name in used)
    return result
