"""Read a TFLite flatbuffer into a Micro Relay graph, keeping TFLite's integer semantics.

Tensors keep their TFLite names (made unique), types and quantization exactly as TFLite Micro reads them:
quantization is set only when both scale and zero point are present, zero point 0 is replicated to match
per-channel scales, and quantized_dimension is kept for per-channel tensors. Each operator is converted by
the function registered for its builtin code in the `builtins` package.

Variable tensors (is_variable: the SVDF and LSTM memories a kernel updates in place) become state tensors
(ir/graph.py) whose initial value is what TFLite Micro's ResetVariableTensors writes at allocation: the zero
point in every byte for int8, zeros otherwise (a buffer's data is overwritten there, so it is ignored here
too). Resource tensors (VAR_HANDLE's handles) get no IR tensor: builtins/variables.py maps them to states.
"""

from __future__ import annotations

import math
import struct
import traceback
from pathlib import Path

import numpy as np
import tflite
from tflite.BuiltinOperator import BuiltinOperator
from tflite.TensorType import TensorType as TfType

from ...errors import CompileError
from .. import UnexpectedModelError
from ...ir.graph import Graph, Node, Tensor
from ...ir.types import DType, Quant, TensorType
from .builtins import CONVERTERS, OUTPUTLESS, ConvertContext

_DTYPES = {
    TfType.FLOAT32: DType.FLOAT32,
    TfType.INT8: DType.INT8,
    TfType.UINT8: DType.UINT8,
    TfType.INT16: DType.INT16,
    TfType.INT32: DType.INT32,
    TfType.UINT32: DType.UINT32,  # audio front-end models
    TfType.INT64: DType.INT64,
    TfType.BOOL: DType.BOOL,
}
_TYPE_NAMES = {v: k for k, v in TfType.__dict__.items() if not k.startswith("_")}
BUILTIN_NAMES = {v: k for k, v in BuiltinOperator.__dict__.items() if not k.startswith("_")}


def _quant(t, shape, where: str) -> Quant | None:
    q = t.Quantization()
    if q is None or q.ScaleLength() == 0 or q.ZeroPointLength() == 0:
        return None
    scales = tuple(float(s) for s in q.ScaleAsNumpy())
    zps = [int(z) for z in q.ZeroPointAsNumpy()]
    if len(zps) not in (1, len(scales)):
        raise CompileError(f"{len(zps)} zero points for {len(scales)} quantization scales", where)
    if len(zps) != len(scales):
        zps = [zps[0]] * len(scales)
    if len(scales) == 1:
        return Quant.tensor(scales[0], zps[0])
    axis = int(q.QuantizedDimension())
    if axis >= len(shape) and len(shape) == 1 and shape[0] == len(scales):
        axis = 0  # person_detect marks 1-D biases with axis 3; TFLite Micro never reads it, so accept it
    if not 0 <= axis < len(shape) or shape[axis] != len(scales):
        raise CompileError(f"{len(scales)} per-channel scales do not match dimension {axis} of {list(shape)}", where)
    return Quant(scales, tuple(zps), axis)


def _read_tensors(model, graph, names: list[str]) -> dict[str, Tensor]:
    tensors = {}
    for index in range(graph.TensorsLength()):
        t = graph.Tensors(index)
        name = names[index]
        where = f"tensor {index} '{name}'"
        shape = tuple(int(d) for d in t.ShapeAsNumpy()) if t.ShapeLength() else ()
        signature = [] if t.ShapeSignatureIsNone() else [int(d) for d in t.ShapeSignatureAsNumpy()]
        # A dynamic batch (signature -1 on axis 0, shape 1) is how converters mark every model; TFLite Micro
        # runs it at the stored shape, and so do we. Any other dynamic dimension is outside Micro Relay.
        if any(d < 0 for d in signature[1:]):
            raise CompileError(f"dynamic dimension in shape signature {signature}", where)
        if any(d < 0 for d in shape):
            raise CompileError(f"unknown dimension in shape {list(shape)}", where)
        tf_type = t.Type()
        if tf_type == TfType.RESOURCE:  # a resource variable's handle: builtins/variables.py
            continue
        if tf_type not in _DTYPES:
            raise CompileError(f"unsupported tensor type {_TYPE_NAMES.get(tf_type, tf_type)}", where)
        dtype = _DTYPES[tf_type]
        ttype = TensorType(shape, dtype, _quant(t, shape, where))
        # From the shape alone, before any buffer is read or array made (zero dimensions wait for the
        # verifier: unused tensors of unsupported operators have them, and the operator is the better error).
        problem = ttype.size_problem() or (ttype.quant.problem(shape, dtype) if ttype.quant else None)
        if problem:
            raise CompileError(problem, where)
        data = None
        buffer_index = t.Buffer()
        if buffer_index >= model.BuffersLength():
            raise CompileError(f"buffer index {buffer_index} out of range", where)
        if buffer_index > 0:
            buf = model.Buffers(buffer_index)
            if buf.DataLength() > 0:
                raw = buf.DataAsNumpy().tobytes()
                count = math.prod(shape)  # exact: numpy's int64 product wraps on hostile shapes
                if len(raw) != count * dtype.itemsize:
                    raise CompileError(f"constant holds {len(raw)} bytes, shape {list(shape)} needs {count * dtype.itemsize}", where)
                data = np.frombuffer(raw, dtype=dtype.numpy.newbyteorder("<")).astype(dtype.numpy).reshape(shape)
            elif buf.Offset() > 1:
                raise CompileError("constant stored outside the flatbuffer (large-model offset) is not supported", where)
        if t.IsVariable():
            fill = ttype.quant.zero_point if dtype is DType.INT8 and ttype.quant is not None else 0
            tensors[name] = Tensor(name, ttype, initial=np.full(shape, fill, dtype.numpy))
            continue
        tensors[name] = Tensor(name, ttype, data)
    return tensors


def _unique_names(graph) -> list[str]:
    names, seen = [], set()
    for index in range(graph.TensorsLength()):
        raw = graph.Tensors(index).Name()
        base = raw.decode("utf-8", "replace") if raw else f"t{index}"
        name, k = base, 1
        while name in seen:
            name, k = f"{base}_{k}", k + 1
        seen.add(name)
        names.append(name)
    return names


def _tensor_names(names: list[str], indices, what: str, where: str, optional: bool) -> list[str]:
    """Tensor indices to names; -1 marks an omitted optional operator input and is the only negative index
    (any other would be a Python index from the end, silently naming another tensor)."""
    result = []
    for position, index in enumerate(int(i) for i in indices):
        if optional and index == -1:
            result.append("")
        elif 0 <= index < len(names):
            result.append(names[index])
        else:
            raise CompileError(f"{what} {position} is tensor index {index}, outside 0..{len(names) - 1}", where)
    return result


def read_tflite(data: bytes, where: str = "model") -> Graph:
    """Convert TFLite flatbuffer bytes into a Micro Relay graph (unverified)."""
    try:
        return _read(data, where)
    except CompileError:
        raise
    except Exception as exc:
        if not _raised_by_flatbuffers(exc):  # a reader bug: one line for the user, the cause kept for tests
            raise UnexpectedModelError(where, exc) from exc
        # flatbuffers raises anything on corrupt offsets
        detail = "a read went past the end of the file" if isinstance(exc, (IndexError, struct.error)) else type(exc).__name__
        raise CompileError(f"corrupt or truncated TFLite flatbuffer: {detail}", where) from None


def _raised_by_flatbuffers(exc: BaseException) -> bool:
    """Whether the innermost frame is the flatbuffers runtime or the schema accessors (a corrupt file), not
    our own code (a bug the range checks should have caught)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return False
    parts = Path(frames[-1].filename).parts
    return ("flatbuffers" in parts or ("tflite" in parts and "micro_relay" not in parts)
            or frames[-1].filename.startswith("<"))


def _read(data: bytes, where: str) -> Graph:
    if len(data) < 16 or data[4:8] != b"TFL3":
        raise CompileError("not a TFLite flatbuffer (no TFL3 identifier)", where)
    root = int.from_bytes(data[0:4], "little")
    if root + 4 > len(data):
        raise CompileError("corrupt or truncated TFLite flatbuffer: the root offset points past the end", where)
    model = tflite.Model.GetRootAsModel(bytearray(data), 0)
    if model.SubgraphsLength() < 1:
        raise CompileError("model has no subgraph", where)
    subgraph = model.Subgraphs(0)
    # A corrupt length field could make the loops below run for billions of steps: every table entry
    # takes at least 4 bytes, so no honest count exceeds len(data) / 4.
    limit = len(data) // 4
    for what, count in (("tensors", subgraph.TensorsLength()), ("operators", subgraph.OperatorsLength()),
                        ("buffers", model.BuffersLength()), ("operator codes", model.OperatorCodesLength())):
        if count > limit:
            raise CompileError(f"corrupt TFLite flatbuffer: {count} {what} cannot fit in {len(data)} bytes", where)
    names = _unique_names(subgraph)
    tensors = _read_tensors(model, subgraph, names)
    ctx = ConvertContext(tensors)
    ctx.model, ctx.model_bytes = model, len(data)  # for converters that read another subgraph (CALL_ONCE)
    nodes: list[Node] = []
    for op_index in range(subgraph.OperatorsLength()):
        op = subgraph.Operators(op_index)
        code_index = op.OpcodeIndex()
        if code_index >= model.OperatorCodesLength():
            raise CompileError(f"opcode index {code_index} out of range", f"op {op_index}")
        opcode = model.OperatorCodes(code_index)
        code = max(opcode.BuiltinCode(), opcode.DeprecatedBuiltinCode())
        op_name = BUILTIN_NAMES.get(code, str(code))
        if code == BuiltinOperator.CUSTOM:
            custom = opcode.CustomCode()
            op_name = f"CUSTOM '{custom.decode() if custom else ''}'"
        input_indices = [int(i) for i in op.InputsAsNumpy()] if op.InputsLength() else []
        output_indices = [int(i) for i in op.OutputsAsNumpy()] if op.OutputsLength() else []
        outputs = [names[i] for i in output_indices if 0 <= i < len(names)]
        op_where = f"op {op_index} {op_name}, tensor '{outputs[0] if outputs else ''}'"
        converter = CONVERTERS.get(code)
        if converter is None:
            raise CompileError(f"unsupported operator {op_name}", op_where)
        inputs = _tensor_names(names, input_indices, "input", op_where, optional=True)
        outputs = _tensor_names(names, output_indices, "output", op_where, optional=False)
        if not outputs and code not in OUTPUTLESS:
            raise CompileError("operator has no outputs", op_where)
        ctx.where = op_where
        ctx.op_index = op_index
        nodes.extend(converter(ctx, op, inputs, outputs))
    graph_inputs = tuple(_tensor_names(names, subgraph.InputsAsNumpy() if subgraph.InputsLength() else [],
                                       "graph input", where, optional=False))
    graph_outputs = tuple(_tensor_names(names, subgraph.OutputsAsNumpy() if subgraph.OutputsLength() else [],
                                        "graph output", where, optional=False))
    for kind, listed in (("input", graph_inputs), ("output", graph_outputs)):
        if len(set(listed)) != len(listed):
            raise CompileError(f"a tensor is listed twice as a graph {kind}", where)
    if not graph_outputs:
        raise CompileError("model has no outputs", where)
    for name in graph_inputs + graph_outputs:
        if name not in ctx.tensors:
            raise CompileError("a resource variable handle is a graph input or output", f"tensor '{name}'")
        if ctx.tensors[name].is_state:
            raise CompileError("a variable tensor is a graph input or output, which micro-relay does not support",
                               f"tensor '{name}'")
    # Graph inputs that TFLite stores with data (rare) are not constants for us.
    all_tensors = dict(ctx.tensors)
    for name in graph_inputs:
        all_tensors[name] = Tensor(name, all_tensors[name].type)
    return Graph(all_tensors, (), graph_inputs, graph_outputs).with_nodes(nodes, all_tensors)
