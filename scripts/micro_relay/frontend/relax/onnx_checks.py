"""Checks on an ONNX model before anything else reads it (constant folding, shape inference, apache-tvm).

A hostile file must end as one line naming what is wrong and where, never as a traceback from deep inside
the onnx package or tvm, and never after materializing a tensor its dims merely claim. In order:
- versions: the IR version and the default-domain opset must be ones the pinned onnx, apache-tvm importer
  and onnxruntime agree on (below opset 6 onnxruntime has no kernels for most operators; above 28 neither
  onnx 1.23 nor onnxruntime 1.32 knows the operators; tvm refuses IR versions below 3);
- names: every name is valid UTF-8 (otherwise protobuf hands over bytes and every later message breaks);
- control flow (If, Loop, Scan) is outside Micro Relay;
- tensors: initializers and Constant values hold exactly the data their dims declare (onnx_tensors.py);
- the graph: declared inputs and outputs have a tensor type and a size a 32-bit target can hold; every tensor
  has one writer; every node input is produced earlier; every graph output is produced;
- opset-6 semantics the importer would silently change: legacy axis broadcasting, spatial=0 batch norm.
"""

from __future__ import annotations

from math import prod

from ...errors import CompileError
from .names import is_text, shown
from .onnx_tensors import ELEMENT_TYPES, check_tensor, checked_size, element_type

IR_VERSIONS = (3, 14)
OPSETS = (6, 28)
DEFAULT_DOMAINS = ("", "ai.onnx")
_LEGACY_BROADCAST = frozenset({"Add", "Sub", "Mul", "Div"})
CONTROL_FLOW = frozenset({"If", "Loop", "Scan"})


def node_where(source: str, node) -> str:
    name = node.name or (node.output[0] if len(node.output) else "")
    return f"{source}: node {shown(name)} ({shown(node.op_type)[1:-1]})"


def check_versions(model, source: str) -> int:
    """The model's default-domain opset, refused outside OPSETS (and the IR version outside IR_VERSIONS)."""
    low, high = IR_VERSIONS
    if not low <= model.ir_version <= high:
        raise CompileError(f"ONNX IR version {model.ir_version} is outside the supported range {low} to {high}",
                           source)
    versions = [o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS]
    low, high = OPSETS
    if not versions:
        raise CompileError(f"the model imports no version of the default ONNX operator set (opset_import for "
                           f"domain ''); supported: opset {low} to {high}", source)
    if len(set(versions)) > 1:
        raise CompileError(f"the model imports the default ONNX operator set more than once (opsets "
                           f"{', '.join(map(str, versions))})", source)
    if not low <= versions[0] <= high:
        raise CompileError(f"the model imports opset {versions[0]} of the default ONNX operator set; supported: "
                           f"opset {low} to {high}", source)
    return versions[0]


def _names(model):
    """(kind, where-index, name) of every name in the main graph that later steps read."""
    graph = model.graph
    for kind, items in (("input", graph.input), ("output", graph.output), ("value_info", graph.value_info),
                        ("initializer", graph.initializer)):
        for index, item in enumerate(items):
            yield f"{kind} {index}", item.name
    for index, node in enumerate(graph.node):
        for field in ("name", "op_type", "domain"):
            yield f"node {index}", getattr(node, field)
        for name in (*node.input, *node.output):
            yield f"node {index}", name
        for attr in node.attribute:
            yield f"node {index}", attr.name
    for opset in model.opset_import:
        yield "opset_import", opset.domain


def check_names(model, source: str) -> None:
    for where, name in _names(model):
        if not is_text(name):
            raise CompileError(f"a name is not valid UTF-8: {shown(name)}", f"{source}: {where}")


def check_tensors(model, source: str) -> None:
    graph = model.graph
    if len(graph.sparse_initializer):
        name = graph.sparse_initializer[0].values.name
        raise CompileError(f"sparse initializer {shown(name)} is not supported", source)
    seen = set()
    for init in graph.initializer:
        what = f"initializer {shown(init.name)}"
        where = f"{source}: {what}"
        if not init.name:
            raise CompileError("an initializer has no name", source)
        if init.name in seen:
            raise CompileError(f"{what} is declared twice", where)
        seen.add(init.name)
        check_tensor(init, what, where)
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == 4 or attr.HasField("t"):  # AttributeProto.TENSOR
                check_tensor(attr.t, f"attribute {shown(attr.name)}", node_where(source, node))
            for t in attr.tensors:
                check_tensor(t, f"attribute {shown(attr.name)}", node_where(source, node))
            if attr.HasField("sparse_tensor") or len(attr.sparse_tensors):
                raise CompileError(f"sparse tensor attribute {shown(attr.name)} is not supported",
                                   node_where(source, node))


def _declared(info, kind: str, source: str, need_type: bool):
    what = f"graph {kind} {shown(info.name)}"
    where = f"{source}: {kind} {shown(info.name)}"
    if not info.type.HasField("tensor_type"):
        if need_type:
            raise CompileError(f"{what} has no tensor type", where)
        return
    tensor_type = info.type.tensor_type
    if tensor_type.elem_type == 0 and not need_type:
        return
    _, itemsize, _, _ = element_type(tensor_type.elem_type, what, where)
    if not tensor_type.HasField("shape"):
        return
    dims = [d.dim_value for d in tensor_type.shape.dim if d.HasField("dim_value")]
    checked_size(dims, itemsize, what, where)


def check_graph(model, source: str) -> None:
    graph = model.graph
    initializers = {i.name for i in graph.initializer}
    writer: dict[str, str] = {}  # tensor name -> who writes it
    inputs = set()
    for info in graph.input:
        if info.name in inputs:
            raise CompileError(f"graph input {shown(info.name)} is declared twice",
                               f"{source}: input {shown(info.name)}")
        inputs.add(info.name)
        _declared(info, "input", source, need_type=info.name not in initializers)
        writer[info.name] = "the graph input"
    for name in initializers:
        writer.setdefault(name, "an initializer")
    for info in graph.output:
        _declared(info, "output", source, need_type=False)
    for info in graph.value_info:
        _declared(info, "value", source, need_type=False)
    later = {name: node for node in graph.node for name in node.output if name}
    for node in graph.node:
        where = node_where(source, node)
        for name in node.input:
            if not name or name in writer:
                continue
            if name in later:
                raise CompileError(f"input {shown(name)} of this node is produced later, by "
                                   f"{node_where(source, later[name]).split(': ', 1)[1]}: nodes must be in "
                                   f"topological order", where)
            raise CompileError(f"input {shown(name)} of this node is not produced by any node, graph input or "
                               f"initializer", where)
        for name in node.output:
            if not name:
                continue
            if name in writer:
                raise CompileError(f"tensor {shown(name)} is written by this node and by {writer[name]}", where)
            writer[name] = node_where(source, node).split(": ", 1)[1]
    for info in graph.output:
        if info.name not in writer:
            raise CompileError(f"graph output {shown(info.name)} is not produced by any node, graph input or "
                               f"initializer", f"{source}: output {shown(info.name)}")


def _attr(node, name: str):
    from onnx import helper

    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), None)


def check_legacy_semantics(model, opset: int, shapes: dict, source: str) -> None:
    """Opset-6 attributes whose meaning tvm's newer converters ignore: refuse rather than compute another
    function. `shapes` are the static shapes known so far (for the ranks of broadcast operands)."""
    for node in model.graph.node:
        if node.domain not in DEFAULT_DOMAINS:
            continue
        if opset < 7 and node.op_type in _LEGACY_BROADCAST and _attr(node, "broadcast") and \
                _attr(node, "axis") is not None and len(node.input) == 2:
            a, b = shapes.get(node.input[0]), shapes.get(node.input[1])
            if a is None or b is None or _attr(node, "axis") != len(a) - len(b):
                raise CompileError(f"opset-{opset} broadcasting along axis {_attr(node, 'axis')} differs from "
                                   f"numpy broadcasting, which the importer applies; re-export at opset 7 or "
                                   f"later", node_where(source, node))
        if opset < 9 and node.op_type == "BatchNormalization" and _attr(node, "spatial") == 0:
            raise CompileError("BatchNormalization with spatial=0 (per-element statistics, opset < 9) is not "
                               "supported", node_where(source, node))


def check_control_flow(model, source: str) -> None:
    for node in model.graph.node:
        if node.op_type in CONTROL_FLOW:
            raise CompileError(f"control flow ({node.op_type}) is outside Micro Relay: it compiles static "
                               f"graphs only", node_where(source, node))


def check_model(model, source: str) -> int:
    """Every check that needs only the model proto; returns the default-domain opset."""
    check_names(model, source)
    check_control_flow(model, source)
    opset = check_versions(model, source)
    check_tensors(model, source)
    check_graph(model, source)
    return opset


def check_value_sizes(model, types: dict, source: str) -> None:
    """Refuse an intermediate tensor that shape inference says is larger than a 32-bit target can hold,
    before tvm builds it (and our planner tries to place it). `types`: name -> (static shape, element type)."""
    producer = {name: node for node in model.graph.node for name in node.output if name}
    for name, (dims, elem_type) in types.items():
        node = producer.get(name)
        if node is None:
            continue
        itemsize = ELEMENT_TYPES.get(elem_type, ("", 1))[1]
        checked_size(dims, itemsize, f"tensor {shown(name)}", node_where(source, node))


def check_quantization(model, types: dict, source: str) -> None:
    """QuantizeLinear / DequantizeLinear parameters whose shapes disagree (tvm stops on them with a dump of
    its operator's signature): a zero point shaped unlike its scale, a per-axis scale whose length is not
    the axis' size, an axis outside the data's rank."""
    dims = {i.name: list(i.dims) for i in model.graph.initializer}
    dims.update({name: list(shape) for name, (shape, _) in types.items() if name not in dims})
    for node in model.graph.node:
        if node.op_type not in ("QuantizeLinear", "DequantizeLinear") or node.domain not in DEFAULT_DOMAINS:
            continue
        if len(node.input) < 2:
            continue
        data, scale = dims.get(node.input[0]), dims.get(node.input[1])
        zero_point = dims.get(node.input[2]) if len(node.input) > 2 and node.input[2] else None
        where = node_where(source, node)
        if scale is not None and zero_point is not None and scale != zero_point and \
                (prod(scale) != prod(zero_point) or prod(scale) > 1):  # [] and [1] are both one value
            raise CompileError(f"zero point {shown(node.input[2])} has shape {zero_point}, its scale "
                               f"{shown(node.input[1])} {scale}", where)
        if scale is None or data is None or len(scale) == 0 or (len(scale) == 1 and scale[0] == 1):
            continue
        axis = _attr(node, "axis")
        axis = 1 if axis is None else axis
        if not -len(data) <= axis < len(data):
            raise CompileError(f"axis {axis} is outside the rank {len(data)} of {shown(node.input[0])}", where)
        if len(scale) == 1 and scale[0] != data[axis]:
            raise CompileError(f"per-axis scale {shown(node.input[1])} has {scale[0]} values for axis {axis} of "
                               f"{shown(node.input[0])}, which has {data[axis]}", where)
