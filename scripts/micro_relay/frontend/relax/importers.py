"""Front doors for ONNX files and PyTorch modules: check, import with apache-tvm's Relax importers, simplify
with Relax passes, then lower (lower.py).

An ONNX file is checked before anything reads its data (onnx_checks.py: versions, names, tensor data,
graph wiring, declared sizes), then its constant subgraphs are folded (onnx_constants.py: exporters compute
pads and shapes at run time) and zero Pads merge into the Conv they feed (onnx_pad.py), then checks run
on it, so errors can name the model's own nodes:
control flow (If, Loop, Scan) is outside Micro Relay; every operator must be one the converters cover;
every input dimension must be static, or given with --input-shape; no tensor is larger than a 32-bit target
holds. All of it runs with tvm's and onnx's warnings and log lines captured (quiet.py), and any exception
the importer raises becomes one line naming the node it was converting. Names in messages are escaped
(names.py).

Relax passes, in this order (measured on apache-tvm 0.27): FoldBatchnormToConv2D, DecomposeOpsForInference,
CanonicalizeBindings, DeadCodeElimination. A QDQ model skips the batch-norm fold. Relax's FoldConstant is
not run: it builds one TIR function per folded call (minutes on a 50-layer network), and would turn
dequantize(int8 weight) into float weights; the lowering evaluates constant calls with numpy instead
(constant_eval.py).
"""

from __future__ import annotations

from pathlib import Path

from ...errors import CompileError
from ...ir.graph import Graph
from . import quiet
from .names import escaped, shown
from .onnx_checks import check_legacy_semantics, check_model, check_quantization, check_value_sizes, node_where
from .onnx_constants import fold_onnx_constants, static_types
from .onnx_overrides import converters_replaced
from .onnx_pad import fold_pad_into_conv
from .onnx_recurrent import cut_recurrent, splice_recurrent
from .onnx_tensors import checked_size, element_type

# ONNX operator types whose Relax form the converters cover (checked before import, to name the node).
SUPPORTED_ONNX_OPS = frozenset({
    "Add", "AveragePool", "BatchNormalization", "Clip", "Concat", "Constant", "Conv", "DequantizeLinear",
    "Div", "Dropout", "Flatten", "Gemm", "GlobalAveragePool", "Identity", "LeakyRelu", "LogSoftmax", "MatMul",
    "MaxPool", "Mul", "QuantizeLinear", "ReduceMean", "Relu", "Reshape", "Sigmoid", "Slice", "Softmax",
    "Squeeze", "Sub", "Tanh", "Transpose", "Unsqueeze",
    "LayerNormalization",
    "Abs", "Ceil", "Elu", "Erf", "Exp", "Floor", "Gelu", "HardSwish", "Log", "Neg", "Round", "Sqrt",
    "LSTM", "GRU",  # cut out before the import, spliced back after it (onnx_recurrent.py)
    # mobile networks (convert_conv_transpose, convert_split, ...)
    "ConvTranspose", "Split", "Pad", "Max", "Min", "Pow", "PRelu", "Softplus", "Softsign", "Selu", "HardSigmoid",
    "Gather", "Tile", "Sum", "ReduceSum", "ReduceMax", "ReduceMin", "InstanceNormalization", "Resize", "Upsample",
    "Less", "Greater", "Equal", "Where", "Expand",
})
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
        passes = [t.FoldBatchnormToConv2D(), t.DecomposeOpsForInference(), t.CanonicalizeBindings(),
                  t.DeadCodeElimination()]
    return tvm.transform.Sequential(passes)(mod)


def _check_layout(io_layout: str):
    if io_layout not in IO_LAYOUTS:
        raise CompileError(f"io layout '{io_layout}' is not one of {', '.join(IO_LAYOUTS)}", "--io-layout")


def _check_onnx_graph(model, source: str) -> bool:
    """Refuse unknown operators, naming the node; True when the model has QDQ nodes."""
    unsupported = []
    for node in model.graph.node:
        if node.op_type not in SUPPORTED_ONNX_OPS or node.domain not in ("", "ai.onnx"):
            unsupported.append(node)
    if unsupported:
        node = unsupported[0]
        kinds = sorted({n.op_type for n in unsupported})
        kinds = [shown(k)[1:-1] for k in kinds]
        raise CompileError(f"unsupported ONNX operator {shown(node.op_type)[1:-1]} (unsupported here: "
                           f"{', '.join(kinds)}; "
                           f"`micro-relay ops` lists the supported ones)", node_where(source, node))
    return any(n.op_type in ("QuantizeLinear", "DequantizeLinear") for n in model.graph.node)


def _input_shapes(model, source: str, given: dict[str, tuple[int, ...]]) -> dict[str, list[int]]:
    initializers = {i.name for i in model.graph.initializer}
    shapes = {}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    for name in given:
        if name not in {i.name for i in inputs}:
            known = ", ".join(escaped(i.name) for i in inputs)
            raise CompileError(f"--input-shape names {shown(name)}, which is not an input (inputs: {known})", source)
    for inp in inputs:
        what = f"input {shown(inp.name)}"
        _, itemsize, _, _ = element_type(inp.type.tensor_type.elem_type, what, f"{source}: {what}")
        if inp.name in given:
            shapes[inp.name] = [int(d) for d in given[inp.name]]
            checked_size(shapes[inp.name], itemsize, f"--input-shape for {what}", "--input-shape")
            continue
        dims = []
        for axis, d in enumerate(inp.type.tensor_type.shape.dim):
            if d.HasField("dim_value") and d.dim_value > 0:
                dims.append(int(d.dim_value))
                continue
            if d.HasField("dim_value"):
                raise CompileError(f"{what} has dimension {d.dim_value} at axis {axis}; dimensions must be "
                                   f"positive", source)
            label = shown(d.dim_param) if d.dim_param else "unknown"
            raise CompileError(f"{what} has a dynamic dimension {label} at axis {axis}; give its static shape "
                               f"with --input-shape {escaped(inp.name)}=D0,D1,...", source)
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
        summary = escaped(str(exc).splitlines()[0]) if str(exc) else type(exc).__name__
        raise CompileError(f"corrupt ONNX file: {summary}", escaped(path)) from None
    if not model.graph.node and not model.graph.output:
        raise CompileError("corrupt or empty ONNX file: no graph", escaped(path))
    try:
        with quiet.captured("the ONNX import (onnx, apache-tvm)") as log:
            return _import_checked(model, source, dict(input_shapes or {}), io_layout, log)
    except CompileError as exc:  # names and importer messages on one printable line
        raise CompileError(escaped(exc.what), escaped(exc.where)) from None


def _import_checked(model, source: str, given: dict, io_layout: str, log) -> Graph:
    import onnx

    opset = check_model(model, source)
    try:
        onnx.checker.check_model(model)
    except Exception as exc:  # onnx.checker.ValidationError, or anything its C++ side raises
        raise CompileError(f"the ONNX checker refused the model: {quiet.first_line(exc)}"[:300], source) from None
    shapes = _input_shapes(model, source, given)
    if opset < 9:
        check_legacy_semantics(model, opset, {n: s for n, (s, _) in static_types(model, shapes).items()} | shapes,
                               source)
    model = fold_onnx_constants(model, shapes)  # exporters' shape arithmetic, before the operator check
    model = fold_pad_into_conv(model)
    types = static_types(model, shapes)
    check_value_sizes(model, types, source)
    check_quantization(model, types, source)
    qdq = _check_onnx_graph(model, source)
    model, cuts, extra_inputs, extra_outputs = cut_recurrent(
        model, {name: shape for name, (shape, _) in types.items()} | {k: tuple(v) for k, v in shapes.items()}, source)
    shapes = shapes | {c_out[1]: list(c_out[2]) for cut in cuts for c_out in cut.outputs}
    _, relax = _tvm()
    from tvm.relax.frontend.onnx import from_onnx

    failure = None
    try:
        with converters_replaced():
            mod = from_onnx(model, shape_dict=shapes, keep_params_in_input=False)
        mod = _simplify(mod, qdq)
    except CompileError:
        raise
    except Exception as exc:  # the importer raises many kinds on models it cannot take
        node = quiet.converting_node(exc)
        failure = (quiet.first_line(exc), node_where(source, node) if node is not None else source)
        log.keep_traceback(exc)
    if failure is not None:
        import gc

        gc.collect()  # the importer's BlockBuilder logs when it dies: let it die while its output is captured
        what, where = failure
        raise CompileError(f"apache-tvm's ONNX importer failed: {what}"[:300], where)
    from .lower import lower_function

    graph = lower_function(mod["main"], source, io_layout, model_order_outputs=len(extra_outputs))
    return splice_recurrent(graph, cuts, extra_inputs, extra_outputs)


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
