"""Constant folding on the ONNX graph itself, before apache-tvm imports it.

Exporters compute shape-like values at run time: PyTorch's F.pad becomes Constant -> ConstantOfShape ->
Concat -> Reshape -> Slice -> Transpose -> Reshape -> Cast -> Pad, and Relax's importer refuses a Pad whose
pads are not constants. With every input shape static, such chains are constants: each node whose inputs
are all known (initializers, Constant outputs, or the Shape of a tensor whose shape is static) is evaluated
once with onnx's own reference evaluator and becomes an initializer. Nodes that read runtime data are kept
as they are; so are nodes whose result would be large (only small shape-like values are folded, at most
MAX_FOLDED_ELEMENTS, so weights are never duplicated).
"""

from __future__ import annotations

import numpy as np

MAX_FOLDED_ELEMENTS = 4096
NEVER_FOLD = frozenset({"QuantizeLinear", "DequantizeLinear", "If", "Loop", "Scan", "RandomNormal",
                        "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial"})


def _static_shapes(model, input_shapes: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
    """Static shapes of graph inputs (as given) and of every tensor onnx's shape inference can fix."""
    import onnx

    shapes = {name: tuple(dims) for name, dims in input_shapes.items()}
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    for inp in fixed.graph.input:
        if inp.name in input_shapes:
            dims = inp.type.tensor_type.shape.dim
            for d, value in zip(dims, input_shapes[inp.name]):
                d.Clear()
                d.dim_value = int(value)
    try:
        inferred = onnx.shape_inference.infer_shapes(fixed)
    except Exception:  # inference is a help here, not a requirement
        return shapes
    for info in inferred.graph.value_info:
        dims = info.type.tensor_type.shape.dim
        if dims and all(d.HasField("dim_value") for d in dims):
            shapes[info.name] = tuple(int(d.dim_value) for d in dims)
    return shapes


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


def _fold_once(model, input_shapes: dict[str, list[int]]):
    import onnx
    from onnx import numpy_helper
    from onnx.reference import ReferenceEvaluator

    known: dict[str, np.ndarray] = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    shapes = _static_shapes(model, input_shapes)
    kept, folded = [], {}
    for node in model.graph.node:
        if node.op_type == "Shape" and node.input[0] in shapes and len(node.attribute) == 0:
            value = np.array(shapes[node.input[0]], dtype=np.int64)
        elif node.op_type not in NEVER_FOLD and node.domain in ("", "ai.onnx") \
                and all(not name or name in known for name in node.input):
            try:
                value = ReferenceEvaluator(node).run(None, {n: known[n] for n in node.input if n})
            except Exception:  # anything the evaluator cannot run stays a node
                kept.append(node)
                continue
            if len(value) != len(node.output) or any(np.asarray(v).size > MAX_FOLDED_ELEMENTS for v in value):
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
