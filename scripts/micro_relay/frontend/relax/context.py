"""The state of one Relax -> Micro Relay lowering: values by Relax variable, new tensors and nodes, layout.

Layout. ONNX and PyTorch models are NCHW (NCW in 1-D); Micro Relay's kernels are NHWC (as TFLite's). A 4-D
(or 3-D) value that a convolution or pooling produced is stored channels-last and marked `nhwc`: its Relax
type says (N, C, H, W), our tensor holds (N, H, W, C) (1-D: (N, C, W) held as (N, W, C)). Element-wise ops
keep the mark; ops with axes map them; an op that needs the model's own element order (a reshape that is not
a plain copy, a transpose) gets the NCHW order back with one `transpose` node. Constants are transposed
here, at compile time, never at run time.

Constants. A Relax constant is a numpy array until an op needs it as a tensor. `dequantize` of a constant
(a QDQ model's weights and biases) stays a `QConst`, integer data with scales, so that weight layout changes
(transposes, reshapes) apply to the integers and the weights reach the graph as int8, never as floats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import CompileError
from ...ir.graph import Node, Tensor, fresh_name
from ...ir.types import DType, Quant, TensorType



def channels_last(rank: int) -> tuple[int, ...]:
    """The model's axes in stored order: (0, 2, 3, 1) for NCHW -> NHWC, (0, 2, 1) for NCW -> NWC."""
    return (0, *range(2, rank), 1)


def channels_first(rank: int) -> tuple[int, ...]:
    """The inverse: stored channels-last axes back in the model's order."""
    return (0, rank - 1, *range(1, rank - 1))


TO_NHWC, TO_NCHW = channels_last(4), channels_first(4)


@dataclass(frozen=True)
class Value:
    """A lowered runtime value: its tensor name and whether it is stored NHWC for an NCHW Relax type."""

    name: str
    nhwc: bool = False


def _axis_through_unit_axes(old, new, axis):
    """Where `axis` of shape `old` lands in shape `new` when the two differ only by size-1 axes, else None."""
    if axis is None or old[axis] == 1:
        return None
    kept_old = [i for i, d in enumerate(old) if d != 1]
    kept_new = [i for i, d in enumerate(new) if d != 1]
    if [old[i] for i in kept_old] != [new[i] for i in kept_new]:
        return None
    return kept_new[kept_old.index(axis)]


@dataclass(frozen=True)
class QConst:
    """dequantize(constant): integer data, per-tensor or per-axis scales and zero points."""

    data: np.ndarray
    scales: np.ndarray
    zero_points: np.ndarray
    axis: int | None

    def transpose(self, axes) -> "QConst":
        axis = None if self.axis is None else list(axes).index(self.axis)
        return QConst(np.ascontiguousarray(np.transpose(self.data, axes)), self.scales, self.zero_points, axis)

    def reshape(self, shape) -> "QConst":
        shape = tuple(int(d) for d in shape)
        axis = self.axis
        moved = _axis_through_unit_axes(self.data.shape, shape, axis)
        if moved is not None:  # only size-1 axes added or removed: the channel axis is followed exactly
            axis = moved
        elif axis is not None:  # the channel axis must survive as an axis of the same length
            length = self.data.shape[axis]
            kept = [i for i, d in enumerate(shape) if d == length]
            if len(kept) != 1 and int(np.prod(shape)) != length:
                raise CompileError(f"cannot reshape per-channel constant {list(self.data.shape)} to {list(shape)}")
            axis = kept[0] if kept else 0
        return QConst(self.data.reshape(shape), self.scales, self.zero_points, axis)

    def quant(self) -> Quant:
        if self.axis is None or self.scales.size == 1:
            return Quant.tensor(float(self.scales.reshape(-1)[0]), int(self.zero_points.reshape(-1)[0]))
        zps = np.broadcast_to(self.zero_points.reshape(-1), self.scales.reshape(-1).shape)
        return Quant(tuple(self.scales.reshape(-1)), tuple(zps), self.axis)

    def real(self) -> np.ndarray:
        """The float values (only for constants whose use has no integer form, e.g. a shape)."""
        shape = [1] * self.data.ndim
        if self.axis is not None and self.scales.size > 1:
            shape[self.axis] = -1
        scales = self.scales.reshape(shape if self.scales.size > 1 else -1)
        zps = self.zero_points.reshape(shape if self.zero_points.size > 1 else -1)
        return ((self.data.astype(np.float64) - zps) * scales).astype(np.float32)


DTYPES = {"float32": DType.FLOAT32, "int8": DType.INT8, "uint8": DType.UINT8, "int16": DType.INT16,
          "int32": DType.INT32, "int64": DType.INT64, "bool": DType.BOOL}


class LowerContext:
    """Collects tensors and nodes; converters call its helpers. `where` names the binding being lowered."""

    def __init__(self, where: str):
        self.source = where
        self.where = where
        self.tensors: dict[str, Tensor] = {}
        self.nodes: list[Node] = []
        self.values: dict[object, Value | np.ndarray | QConst] = {}  # keyed by Relax Var (names repeat)

    # -- errors and names -------------------------------------------------------------------------------
    def fail(self, what: str):
        raise CompileError(what, self.where)

    def fresh(self, hint: str) -> str:
        base = "".join(c if c.isalnum() or c in "_.:/" else "_" for c in hint) or "t"
        return fresh_name(self.tensors, base)

    # -- tensors ----------------------------------------------------------------------------------------
    def add_tensor(self, hint: str, ttype: TensorType, data: np.ndarray | None = None) -> str:
        name = self.fresh(hint)
        self.tensors[name] = Tensor(name, ttype, data)
        return name

    def constant(self, array: np.ndarray, hint: str = "const") -> str:
        array = np.ascontiguousarray(array)
        dtype = DTYPES.get(str(array.dtype))
        if dtype is None:
            self.fail(f"constant of type {array.dtype} is not supported")
        if dtype == DType.INT64:  # index-like constants: our ops take int32
            array, dtype = array.astype(np.int32), DType.INT32
        if dtype == DType.FLOAT32:
            array = array.astype(np.float32)
        return self.add_tensor(hint, TensorType(tuple(int(d) for d in array.shape), dtype), array)

    def qconstant(self, q: QConst, hint: str) -> str:
        """An integer constant with its quantization, dequantized by a node: a float tensor in the graph."""
        dtype = DTYPES[str(q.data.dtype)]
        raw = self.add_tensor(hint + "_q", TensorType(tuple(q.data.shape), dtype, q.quant()), q.data)
        return self.node("qnn.dequantize", [raw], TensorType(tuple(q.data.shape), DType.FLOAT32), hint)

    def type_of(self, name: str) -> TensorType:
        return self.tensors[name].type

    def node(self, op: str, inputs, out_type: TensorType, hint: str, **attrs) -> str:
        out = self.add_tensor(hint, out_type)
        self.nodes.append(Node(op, tuple(inputs), (out,), attrs, name=self.where))
        return out

    # -- layout -----------------------------------------------------------------------------------------
    def tensor_of(self, v, hint: str = "const") -> str:
        """The tensor of a value in whatever layout it has (constants become tensors)."""
        if isinstance(v, Value):
            return v.name
        if isinstance(v, QConst):
            return self.qconstant(v, hint)
        return self.constant(v, hint)

    def transpose(self, name: str, axes, hint: str) -> str:
        t = self.type_of(name)
        shape = tuple(t.shape[a] for a in axes)
        return self.node("transpose", [name], TensorType(shape, t.dtype, t.quant), hint, axes=tuple(axes))

    def model_order(self, v, hint: str) -> str:
        """The value's tensor in the model's own (NCHW) element order."""
        if isinstance(v, Value) and v.nhwc:
            return self.transpose(v.name, channels_first(self.type_of(v.name).rank), hint + "_nchw")
        return self.tensor_of(v, hint)

    def nhwc_order(self, v, hint: str) -> str:
        """A 4-D (or 3-D) value's tensor in channels-last order (constants are transposed now)."""
        if isinstance(v, Value):
            rank = self.type_of(v.name).rank
            return v.name if v.nhwc else self.transpose(v.name, channels_last(rank), hint + "_nhwc")
        if isinstance(v, QConst):
            return self.qconstant(v.transpose(channels_last(v.data.ndim)), hint)
        return self.constant(np.transpose(v, channels_last(v.ndim)), hint)
