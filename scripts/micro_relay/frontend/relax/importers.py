"""Front doors for ONNX files and PyTorch modules: check, import with apache-tvm's Relax importers, simplify
with Relax passes, then lower (lower.py).

Before tvm sees the ONNX graph, its constant subgraphs are folded (onnx_constants.py: exporters compute
pads and shapes at run time) and zero Pads merge into the Conv they feed (onnx_pad.py), then checks run
on it, so errors can name the model's own nodes:
control flow (If, Loop, Scan) is outside Micro Relay; every operator must be one the converters cover;
every input dimension must be static, or given with --input-shape.

Relax passes, in this order (measured on apache-tvm 0.27): FoldBatchnormToConv2D, DecomposeOpsForInference,
FoldConstant, CanonicalizeBindings, DeadCodeElimination. A QDQ model skips both folds: FoldConstant would
turn dequantize(int8 weight) into float weights; its constant shape work is done by the lowering instead.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import CompileError
from ...ir.graph import Graph
from .onnx_constants import fold_onnx_constants
from .onnx_pad import fold_pad_into_conv

# ONNX operator types whose Relax form the converters cover (checked before import, to name the node).
SUPPORTED_ONNX_OPS = frozenset({
    "Add", "AveragePool", "BatchNormalization", "Clip", "Concat", "Constant", "Conv", "DequantizeLinear",
    "Div", "Dropout", "Flatten", "Gemm", "GlobalAveragePool", "Identity", "LeakyRelu", "LogSoftmax", "MatMul",
    "MaxPool", "Mul", "QuantizeLinear", "ReduceMean", "Relu", "Reshape", "Sigmoid", "Slice", "Softmax",
    "Squeeze", "Sub", "Tanh", "Transpose", "Unsqueeze",
})
CONTROL_FLOW = frozenset({"If", "Loop", "Scan"})
IO_LAYOUTS = ("nhwc", "nchw")


def _tvm():
    try:
        import tvm
        from tvm import relax
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise CompileError(f"ONNX and PyTorch models need apache-tvm ({exc}): pip install apache-tvm==0.27.0.post1 "
                           f"onnx (or micro-relay[onnx])") from None
    return tvm, relax


def _simplify(mod, qdq: bool):
    tvm, relax = _tvm()
    t = relax.transform
    passes = [t.DecomposeOpsForInference(), t.CanonicalizeBindings(), t.DeadCodeElimination()]
    if not qdq:
        passes = [t.FoldBatchnormToConv2D(), t.DecomposeOpsForInference(), t.FoldConstant(),
                  t.CanonicalizeBindings(), t.DeadCodeElimination()]
    return tvm.transform.Sequential(passes)(mod)


def _check_layout(io_layout: str):
    if io_layout not in IO_LAYOUTS:
        raise CompileError(f"io layout '{io_layout}' is not one of {', '.join(IO_LAYOUTS)}", "--io-layout")


def _node_where(source: str, node) -> str:
    return f"{source}: node '{node.name or node.output[0] if node.output else node.name}' ({node.op_type})"


def _check_onnx_graph(model, source: str) -> bool:
    """Refuse control flow and unknown operators, naming the node; True when the model has QDQ nodes."""
    unsupported = []
    for node in model.graph.node:
        if node.op_type in CONTROL_FLOW:
            raise CompileError(f"control flow ({node.op_type}) is outside Micro Relay: it compiles static "
                               f"graphs only", _node_where(source, node))
        if node.op_type not in SUPPORTED_ONNX_OPS or node.domain not in ("", "ai.onnx"):
            unsupported.append(node)
    if unsupported:
        node = unsupported[0]
        kinds = sorted({n.op_type for n in unsupported})
        raise CompileError(f"unsupported ONNX operator {node.op_type} (unsupported here: {', '.join(kinds)}; "
                           f"`micro-relay ops` lists the supported ones)", _node_where(source, node))
    return any(n.op_type in ("QuantizeLinear", "DequantizeLinear") for n in model.graph.node)


def _input_shapes(model, source: str, given: dict[str, tuple[int, ...]]) -> dict[str, list[int]]:
    initializers = {i.name for i in model.graph.initializer}
    shapes = {}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    for name in given:
        if name not in {i.name for i in inputs}:
            known = ", ".join(i.name for i in inputs)
            raise CompileError(f"--input-shape names '{name}', which is not an input (inputs: {known})", source)
    for inp in inputs:
        if inp.name in given:
            shapes[inp.name] = [int(d) for d in given[inp.name]]
            continue
        dims = []
        for axis, d in enumerate(inp.type.tensor_type.shape.dim):
            if d.HasField("dim_value") and d.dim_value > 0:
                dims.append(int(d.dim_value))
                continue
            label = f"'{d.dim_param}'" if d.dim_param else "unknown"
            raise CompileError(f"input '{inp.name}' has a dynamic dimension {label} at axis {axis}; give its "
                               f"static shape with --input-shape {inp.name}=D0,D1,...", source)
        shapes[inp.name] = dims
    return shapes


def load_onnx(path: str | Path, data: bytes, input_shapes: dict | None = None, io_layout: str = "nhwc") -> Graph:
    """An ONNX file's bytes -> unverified Micro Relay graph."""
    _check_layout(io_layout)
    source = Path(path).name
    try:
        import onnx
        from google.protobuf.message import DecodeError
    except ImportError as exc:  # pragma: no cover
        raise CompileError(f"ONNX models need the onnx package ({exc})", str(path)) from None
    try:
        model = onnx.load_model_from_string(data)
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise CompileError(f"corrupt ONNX file: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                           str(path)) from None
    if not model.graph.node and not model.graph.output:
        raise CompileError("corrupt or empty ONNX file: no graph", str(path))
    shapes = _input_shapes(model, source, dict(input_shapes or {}))
    model = fold_onnx_constants(model, shapes)  # exporters' shape arithmetic, before the operator check
    model = fold_pad_into_conv(model)
    qdq = _check_onnx_graph(model, source)
    _, relax = _tvm()
    from tvm.relax.frontend.onnx import from_onnx

    try:
        mod = from_onnx(model, shape_dict=shapes, keep_params_in_input=False)
        mod = _simplify(mod, qdq)
    except CompileError:
        raise
    except Exception as exc:  # the importer raises many kinds on models it cannot take
        first = str(exc).strip().splitlines()
        raise CompileError(f"the ONNX importer (apache-tvm) refused the model: {type(exc).__name__}: "
                           f"{first[-1] if first else ''}"[:300], str(path)) from None
    from .lower import lower_function

    return lower_function(mod["main"], source, io_layout)


def from_torch(module, example_inputs, io_layout: str = "nhwc", name: str = "torch_module") -> Graph:
    """A PyTorch module and example inputs -> unverified Micro Relay graph (torch.export, then Relax)."""
    _check_layout(io_layout)
    try:
        import torch
    except ImportError as exc:  # pragma: no cover
        raise CompileError(f"PyTorch models need torch ({exc})") from None
    _tvm()
    from tvm.relax.frontend.torch import from_exported_program

    try:
        exported = torch.export.export(module.eval(), tuple(example_inputs))
    except Exception as exc:
        raise CompileError(f"torch.export failed: {type(exc).__name__}: {str(exc).splitlines()[0]}"[:300],
                           name) from None
    try:
        mod = from_exported_program(exported, keep_params_as_input=False, unwrap_unit_return_tuple=True)
        mod = _simplify(mod, qdq=False)
    except Exception as exc:
        first = str(exc).strip().splitlines()
        raise CompileError(f"the PyTorch importer (apache-tvm) refused the module: {type(exc).__name__}: "
                           f"{first[-1] if first else ''}"[:300], name) from None
    from .lower import lower_function

    return lower_function(mod["main"], name, io_layout)
