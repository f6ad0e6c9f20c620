"""Write small TFLite flatbuffers: the project's own models, and single-op models for kernel tests.

The reader's counterpart. A `TFLiteBuilder` collects tensors and operators by name and `build()` lays them
out the way modern TFLite converters do, so TFLite Micro and our reader accept the result like any
converted model:
- file identifier "TFL3", schema version 3, one subgraph named "main";
- buffer 0 is the empty sentinel; each constant tensor gets its own buffer, data aligned to 16 bytes
  (the schema's force_align); activations use buffer 0;
- operator codes list each builtin once, in order of first use, with both `builtin_code` and
  `deprecated_builtin_code` (capped at 127, PLACEHOLDER_FOR_GREATER_OP_CODES) set;
- CUSTOM operators (`custom_op`: TFLite Micro's signal library) get one operator code per custom code, and
  their keyword options become the flexbuffer map in custom_options;
- quantization is written only when a scale is given: scale (float32), zero point (int64, one per scale)
  and quantized_dimension for per-channel tensors;
- stateful models: `tensor(..., variable=True)` marks a variable tensor (is_variable: the SVDF/LSTM state a
  kernel updates in place), dtype "resource" a resource-variable handle (VAR_HANDLE's output), and
  `subgraph(builder)` adds another builder's tensors and operators as a further subgraph (CALL_ONCE's init
  subgraph), sharing this model's operator codes and buffers.

Operator options are given by readable keyword (`stride=(2, 2)`, `padding="SAME"`, `activation="RELU6"`);
the tables below (`_OPERATORS`) say which keywords each operator takes and what each defaults to. Output
shapes are not derived: callers pass every tensor's shape. The same calls always give the same bytes.

Example (a 3x3 int8 convolution):

    b = TFLiteBuilder()
    x = b.tensor("x", (1, 8, 8, 3), "int8", scale=0.05, zero_point=-3)
    w = b.tensor("w", (4, 3, 3, 3), "int8", data=weights, scale=[0.01] * 4, zero_point=0, axis=0)
    y = b.tensor("y", (1, 4, 4, 4), "int8", scale=0.1, zero_point=2)
    b.op("CONV_2D", [x, w], [y], stride=(2, 2), padding="SAME", activation="RELU")
    model = b.inputs(x).outputs(y).build()
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import flatbuffers
import numpy as np
import tflite
from flatbuffers import flexbuffers
from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.BuiltinOperator import BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions
from tflite.MirrorPadMode import MirrorPadMode
from tflite.Padding import Padding
from tflite.TensorType import TensorType

__all__ = ["TFLiteBuilder", "SUPPORTED_OPERATORS"]

SCHEMA_VERSION = 3
FILE_IDENTIFIER = b"TFL3"
DATA_ALIGNMENT = 16  # schema: Buffer.data (force_align: 16)
_GREATER_OP_CODES = BuiltinOperator.PLACEHOLDER_FOR_GREATER_OP_CODES  # 127: the int8 field's sentinel

_TENSOR_TYPES = {
    np.dtype(np.float32): TensorType.FLOAT32,
    np.dtype(np.float16): TensorType.FLOAT16,
    np.dtype(np.float64): TensorType.FLOAT64,
    np.dtype(np.int8): TensorType.INT8,
    np.dtype(np.uint8): TensorType.UINT8,
    np.dtype(np.int16): TensorType.INT16,
    np.dtype(np.uint16): TensorType.UINT16,
    np.dtype(np.int32): TensorType.INT32,
    np.dtype(np.uint32): TensorType.UINT32,
    np.dtype(np.uint64): TensorType.UINT64,
    np.dtype(np.int64): TensorType.INT64,
    np.dtype(np.bool_): TensorType.BOOL,
}


# ---------------------------------------------------------------------------------------------------------
# Option keywords. An encoder turns a keyword's value into (schema field, value) pairs; a list value is
# written as an int32 vector.

_REQUIRED = object()


@dataclass(frozen=True)
class _Option:
    encode: Callable[[Any], list[tuple[str, Any]]]
    default: Any = None  # None: omit (schema default); _REQUIRED: the caller must give it


def _enum_value(kind: str, table: type, value) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    key = "NONE" if value is None else str(value).upper()
    names = {k: v for k, v in vars(table).items() if not k.startswith("_")}
    if key not in names:
        raise ValueError(f"unknown {kind} {value!r}; expected one of {sorted(names)}")
    return names[key]


def _pair(value) -> tuple[int, int]:
    """(h, w) from a pair or one int for both."""
    if isinstance(value, int):
        return value, value
    h, w = value
    return int(h), int(w)


def _padding() -> _Option:
    return _Option(lambda v: [("Padding", _enum_value("padding", Padding, v))], _REQUIRED)


def _activation() -> _Option:
    return _Option(lambda v: [("FusedActivationFunction", _enum_value("activation", ActivationFunctionType, v))],
                   "NONE")


def _hw(field_h: str, field_w: str, default=None) -> _Option:
    def encode(value):
        h, w = _pair(value)
        return [(field_h, h), (field_w, w)]

    return _Option(encode, default)


def _string(field: str, default=None) -> _Option:
    return _Option(lambda v: [(field, str(v))], default)


def _scalar(field: str, cast: type, default=None) -> _Option:
    return _Option(lambda v: [(field, cast(v))], default)


def _int_vector(field: str) -> _Option:
    return _Option(lambda v: [(field, [int(x) for x in v])])


def _tensor_type(field: str) -> _Option:
    return _Option(lambda v: [(field, _TENSOR_TYPES[_numpy_dtype(v)])])


def _conv_options() -> dict[str, _Option]:
    return {"padding": _padding(), "stride": _hw("StrideH", "StrideW", (1, 1)),
            "dilation": _hw("DilationHFactor", "DilationWFactor", (1, 1)), "activation": _activation(),
            "quantized_bias_type": _tensor_type("QuantizedBiasType")}


def _pool_options() -> dict[str, _Option]:
    return {"padding": _padding(), "stride": _hw("StrideH", "StrideW", (1, 1)),
            "filter_size": _hw("FilterHeight", "FilterWidth", _REQUIRED), "activation": _activation()}


def _binary_options(with_pot_scale: bool) -> dict[str, _Option]:
    options = {"activation": _activation()}
    if with_pot_scale:
        options["pot_scale_int16"] = _scalar("PotScaleInt16", bool)
    return options


@dataclass(frozen=True)
class _OpSpec:
    table: str | None  # the options table (and BuiltinOptions union member), None for no options
    options: dict[str, _Option]


_OPERATORS: dict[str, _OpSpec] = {
    "CONV_2D": _OpSpec("Conv2DOptions", _conv_options()),
    "DEPTHWISE_CONV_2D": _OpSpec("DepthwiseConv2DOptions", {
        **{k: v for k, v in _conv_options().items() if k != "quantized_bias_type"},
        "depth_multiplier": _scalar("DepthMultiplier", int, 1)}),
    "TRANSPOSE_CONV": _OpSpec("TransposeConvOptions", {
        "padding": _padding(), "stride": _hw("StrideH", "StrideW", (1, 1)), "activation": _activation(),
        "quantized_bias_type": _tensor_type("QuantizedBiasType")}),
    "FULLY_CONNECTED": _OpSpec("FullyConnectedOptions", {
        "activation": _activation(), "keep_num_dims": _scalar("KeepNumDims", bool),
        "asymmetric_quantize_inputs": _scalar("AsymmetricQuantizeInputs", bool),
        "quantized_bias_type": _tensor_type("QuantizedBiasType")}),
    "AVERAGE_POOL_2D": _OpSpec("Pool2DOptions", _pool_options()),
    "MAX_POOL_2D": _OpSpec("Pool2DOptions", _pool_options()),
    "ADD": _OpSpec("AddOptions", _binary_options(True)),
    "SUB": _OpSpec("SubOptions", _binary_options(True)),
    "MUL": _OpSpec("MulOptions", _binary_options(False)),
    "RESHAPE": _OpSpec("ReshapeOptions", {"new_shape": _int_vector("NewShape")}),
    "SOFTMAX": _OpSpec("SoftmaxOptions", {"beta": _scalar("Beta", float, 1.0)}),
    "QUANTIZE": _OpSpec("QuantizeOptions", {}),
    "DEQUANTIZE": _OpSpec("DequantizeOptions", {}),
    "PAD": _OpSpec("PadOptions", {}),
    "PADV2": _OpSpec("PadV2Options", {}),
    "STRIDED_SLICE": _OpSpec("StridedSliceOptions", {
        "begin_mask": _scalar("BeginMask", int), "end_mask": _scalar("EndMask", int),
        "ellipsis_mask": _scalar("EllipsisMask", int), "new_axis_mask": _scalar("NewAxisMask", int),
        "shrink_axis_mask": _scalar("ShrinkAxisMask", int), "offset": _scalar("Offset", bool)}),
    "LEAKY_RELU": _OpSpec("LeakyReluOptions", {"alpha": _scalar("Alpha", float, _REQUIRED)}),
    "CONCATENATION": _OpSpec("ConcatenationOptions", {"axis": _scalar("Axis", int, _REQUIRED),
                                                      "activation": _activation()}),
    "MEAN": _OpSpec("ReducerOptions", {"keep_dims": _scalar("KeepDims", bool)}),
    "LOGISTIC": _OpSpec(None, {}),
    "TANH": _OpSpec(None, {}),
    "RELU": _OpSpec(None, {}),
    "RELU6": _OpSpec(None, {}),
    # reductions, normalization, resize
    "SUM": _OpSpec("ReducerOptions", {"keep_dims": _scalar("KeepDims", bool)}),
    "REDUCE_MAX": _OpSpec("ReducerOptions", {"keep_dims": _scalar("KeepDims", bool)}),
    "REDUCE_MIN": _OpSpec("ReducerOptions", {"keep_dims": _scalar("KeepDims", bool)}),
    "REDUCE_PROD": _OpSpec("ReducerOptions", {"keep_dims": _scalar("KeepDims", bool)}),
    "ARG_MAX": _OpSpec("ArgMaxOptions", {"output_type": _tensor_type("OutputType")}),
    "ARG_MIN": _OpSpec("ArgMinOptions", {"output_type": _tensor_type("OutputType")}),
    "L2_NORMALIZATION": _OpSpec("L2NormOptions", {"activation": _activation()}),
    "RESIZE_NEAREST_NEIGHBOR": _OpSpec("ResizeNearestNeighborOptions", {
        "align_corners": _scalar("AlignCorners", bool), "half_pixel_centers": _scalar("HalfPixelCenters", bool)}),
    "RESIZE_BILINEAR": _OpSpec("ResizeBilinearOptions", {
        "align_corners": _scalar("AlignCorners", bool), "half_pixel_centers": _scalar("HalfPixelCenters", bool)}),
    # data movement and shape (frontend/tflite/builtins/movement.py)
    "TRANSPOSE": _OpSpec("TransposeOptions", {}),
    "SLICE": _OpSpec("SliceOptions", {}),
    "SPLIT": _OpSpec("SplitOptions", {"num_splits": _scalar("NumSplits", int, _REQUIRED)}),
    "SPLIT_V": _OpSpec("SplitVOptions", {"num_splits": _scalar("NumSplits", int, _REQUIRED)}),
    "PACK": _OpSpec("PackOptions", {"values_count": _scalar("ValuesCount", int, _REQUIRED),
                                    "axis": _scalar("Axis", int, 0)}),
    "UNPACK": _OpSpec("UnpackOptions", {"num": _scalar("Num", int, _REQUIRED), "axis": _scalar("Axis", int, 0)}),
    "GATHER": _OpSpec("GatherOptions", {"axis": _scalar("Axis", int, 0), "batch_dims": _scalar("BatchDims", int)}),
    "GATHER_ND": _OpSpec("GatherNdOptions", {}),
    "BROADCAST_TO": _OpSpec("BroadcastToOptions", {}),
    "TILE": _OpSpec("TileOptions", {}),
    "FILL": _OpSpec("FillOptions", {}),
    "ZEROS_LIKE": _OpSpec("ZerosLikeOptions", {}),
    "MIRROR_PAD": _OpSpec("MirrorPadOptions", {"mode": _Option(
        lambda v: [("Mode", _enum_value("mirror pad mode", MirrorPadMode, v))], "REFLECT")}),
    "SPACE_TO_DEPTH": _OpSpec("SpaceToDepthOptions", {"block_size": _scalar("BlockSize", int, _REQUIRED)}),
    "DEPTH_TO_SPACE": _OpSpec("DepthToSpaceOptions", {"block_size": _scalar("BlockSize", int, _REQUIRED)}),
    "SPACE_TO_BATCH_ND": _OpSpec("SpaceToBatchNDOptions", {}),
    "BATCH_TO_SPACE_ND": _OpSpec("BatchToSpaceNDOptions", {}),
    "CAST": _OpSpec("CastOptions", {"in_data_type": _tensor_type("InDataType"),
                                    "out_data_type": _tensor_type("OutDataType")}),
    # binary math: element-wise binary ops, comparisons, logical ops, select, PReLU, batch matmul
    "DIV": _OpSpec("DivOptions", {"activation": _activation()}),
    **{name: _OpSpec(None, {}) for name in (
        "MAXIMUM", "MINIMUM", "POW", "SQUARED_DIFFERENCE", "FLOOR_DIV", "FLOOR_MOD", "EQUAL", "NOT_EQUAL", "LESS",
        "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT", "SELECT", "SELECT_V2",
        "PRELU")},
    "BATCH_MATMUL": _OpSpec("BatchMatMulOptions", {"adj_x": _scalar("AdjX", bool), "adj_y": _scalar("AdjY", bool)}),
    # unary math
    "ABS": _OpSpec(None, {}),
    "NEG": _OpSpec(None, {}),
    "EXP": _OpSpec(None, {}),
    "LOG": _OpSpec(None, {}),
    "SQRT": _OpSpec(None, {}),
    "RSQRT": _OpSpec(None, {}),
    "SQUARE": _OpSpec(None, {}),
    "FLOOR": _OpSpec(None, {}),
    "CEIL": _OpSpec(None, {}),
    "ROUND": _OpSpec(None, {}),
    "HARD_SWISH": _OpSpec(None, {}),
    "ELU": _OpSpec(None, {}),
    "GELU": _OpSpec("GeluOptions", {"approximate": _scalar("Approximate", bool)}),
    # stateful models: SVDF and resource variables
    "SVDF": _OpSpec("SVDFOptions", {"rank": _scalar("Rank", int, _REQUIRED), "activation": _activation(),
                                    "asymmetric_quantize_inputs": _scalar("AsymmetricQuantizeInputs", bool)}),
    "VAR_HANDLE": _OpSpec("VarHandleOptions", {"container": _string("Container"),
                                               "shared_name": _string("SharedName", _REQUIRED)}),
    "READ_VARIABLE": _OpSpec(None, {}),
    "ASSIGN_VARIABLE": _OpSpec(None, {}),
    "CALL_ONCE": _OpSpec("CallOnceOptions", {"init_subgraph_index": _scalar("InitSubgraphIndex", int, _REQUIRED)}),
    # recurrent: the cell gate's activation is TANH (TFLite Micro runs no other), the states are variables
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _OpSpec("UnidirectionalSequenceLSTMOptions", {
        "activation": _Option(lambda v: [("FusedActivationFunction",
                                          _enum_value("activation", ActivationFunctionType, v))], "TANH"),
        "cell_clip": _scalar("CellClip", float), "proj_clip": _scalar("ProjClip", float),
        "time_major": _scalar("TimeMajor", bool),
        "asymmetric_quantize_inputs": _scalar("AsymmetricQuantizeInputs", bool),
        "diagonal_recurrent_tensors": _scalar("DiagonalRecurrentTensors", bool)}),
    # log_softmax
    "LOG_SOFTMAX": _OpSpec("LogSoftmaxOptions", {}),
}

SUPPORTED_OPERATORS = tuple(sorted(_OPERATORS))


# ---------------------------------------------------------------------------------------------------------


def _numpy_dtype(dtype) -> np.dtype:
    """Accept numpy dtypes, their names, and Micro Relay's DType (which carries `.numpy`)."""
    dtype = getattr(dtype, "numpy", dtype)
    result = np.dtype(dtype)
    if result not in _TENSOR_TYPES:
        raise ValueError(f"no TFLite tensor type for {result}")
    return result


@dataclass(frozen=True)
class _Quantization:
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    axis: int | None


@dataclass(frozen=True)
class _Tensor:
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    data: bytes | None
    quant: _Quantization | None
    variable: bool = False
    tf_type: int | None = None  # the TFLite type when numpy has none (RESOURCE)


@dataclass(frozen=True)
class _Operator:
    code: int
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    table: str | None
    fields: tuple[tuple[str, Any], ...]
    custom: str | None = None  # CUSTOM operators: the custom code and the flexbuffer options
    custom_options: bytes = b""

    @property
    def opcode(self) -> tuple[int, str | None]:
        """What its operator-code entry is: the builtin, and for CUSTOM operators the custom code."""
        return self.code, self.custom


class TFLiteBuilder:
    """Collects tensors and operators of one subgraph (and the builders of further ones, `subgraph`);
    `build()` returns the .tflite bytes."""

    def __init__(self, description: str = "Micro Relay TFLite writer"):
        self._description = description
        self._tensors: list[_Tensor] = []
        self._index: dict[str, int] = {}
        self._operators: list[_Operator] = []
        self._inputs: tuple[str, ...] | None = None
        self._outputs: tuple[str, ...] | None = None
        self._subgraphs: list["TFLiteBuilder"] = []

    # -- tensors --------------------------------------------------------------------------------------

    def tensor(self, name: str, shape: Sequence[int], dtype, data=None, scale=None, zero_point=None,
               axis: int | None = None, variable: bool = False) -> str:
        """Add a tensor and return its name.

        `data` makes it a constant (cast to `dtype`, stored little-endian in row-major order). `scale`
        is a number (per-tensor) or a sequence (per-channel along `axis`, which is then required);
        `zero_point` is a number, repeated for every channel, or one per scale, and defaults to 0.
        `variable` marks a tensor an operator keeps between invokes (an LSTM's states: is_variable).
        """
        if name in self._index:
            raise ValueError(f"tensor {name!r} is defined twice")
        shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"tensor {name!r}: negative dimension in {list(shape)}")
        if isinstance(dtype, str) and dtype.lower() == "resource":
            self._index[name] = len(self._tensors)
            self._tensors.append(_Tensor(name, shape, np.dtype(np.int32), None, None, False, TensorType.RESOURCE))
            return name
        np_dtype = _numpy_dtype(dtype)
        raw = None
        if data is not None:
            array = np.asarray(data)
            if array.size != int(np.prod(shape, dtype=np.int64)):
                raise ValueError(f"tensor {name!r}: {array.size} values do not fill shape {list(shape)}")
            raw = array.astype(np_dtype).reshape(shape).astype(np_dtype.newbyteorder("<")).tobytes(order="C")
        quant = self._quantization(name, shape, scale, zero_point, axis)
        self._index[name] = len(self._tensors)
        self._tensors.append(_Tensor(name, shape, np_dtype, raw, quant, bool(variable)))
        return name

    @staticmethod
    def _quantization(name, shape, scale, zero_point, axis) -> _Quantization | None:
        if scale is None:
            if zero_point is not None or axis is not None:
                raise ValueError(f"tensor {name!r}: zero_point or axis given without scale")
            return None
        scales = tuple(float(s) for s in np.atleast_1d(np.asarray(scale, dtype=np.float64)))
        zps = np.atleast_1d(np.asarray(0 if zero_point is None else zero_point, dtype=np.int64))
        if zps.size == 1:
            zps = np.repeat(zps, len(scales))
        if zps.size != len(scales):
            raise ValueError(f"tensor {name!r}: {zps.size} zero points for {len(scales)} scales")
        if len(scales) > 1 and axis is None:
            raise ValueError(f"tensor {name!r}: per-channel scales need an axis")
        if axis is not None:
            if not 0 <= axis < len(shape):
                raise ValueError(f"tensor {name!r}: axis {axis} out of range for shape {list(shape)}")
            if len(scales) > 1 and shape[axis] != len(scales):
                raise ValueError(f"tensor {name!r}: {len(scales)} scales for dimension {axis} of {list(shape)}")
        return _Quantization(scales, tuple(int(z) for z in zps), axis)

    # -- operators ------------------------------------------------------------------------------------

    def op(self, name: str, inputs: Sequence[str | None], outputs: Sequence[str], **options) -> "TFLiteBuilder":
        """Append an operator; None (or "") in `inputs` marks an omitted optional input (index -1).

        A convolution without bias is better written with two inputs: TFLite Micro's DEPTHWISE_CONV_2D
        counts three inputs as "has bias" and crashes on the -1.
        """
        spec = _OPERATORS.get(name)
        if spec is None:
            raise ValueError(f"operator {name!r} is not supported by the writer; supported: {SUPPORTED_OPERATORS}")
        unknown = sorted(set(options) - set(spec.options))
        if unknown:
            raise TypeError(f"{name} takes options {sorted(spec.options)}, not {unknown}")
        fields: list[tuple[str, Any]] = []
        for keyword, option in spec.options.items():
            value = options.get(keyword, option.default)
            if value is _REQUIRED:
                raise TypeError(f"{name} needs the option {keyword!r}")
            if value is not None:
                fields.extend(option.encode(value))
        self._operators.append(_Operator(
            getattr(BuiltinOperator, name),
            tuple(self._lookup(t) if t else -1 for t in inputs),
            tuple(self._lookup(t) for t in outputs),
            spec.table, tuple(fields)))
        return self

    def custom_op(self, custom_code: str, inputs: Sequence[str | None], outputs: Sequence[str],
                  **options) -> "TFLiteBuilder":
        """Append a CUSTOM operator: `options` become its custom_options, a flexbuffer map (TFLite Micro's
        signal ops read it as the vector of its values in key order)."""
        blob = flexbuffers.Dumps({k: options[k] for k in sorted(options)}) if options else b""
        self._operators.append(_Operator(
            BuiltinOperator.CUSTOM, tuple(self._lookup(t) if t else -1 for t in inputs),
            tuple(self._lookup(t) for t in outputs), None, (), str(custom_code), bytes(blob)))
        return self

    def subgraph(self, builder: "TFLiteBuilder") -> int:
        """Add `builder`'s tensors and operators as the next subgraph; returns its index (1, 2, ...)."""
        self._subgraphs.append(builder)
        return len(self._subgraphs)

    def inputs(self, *names: str) -> "TFLiteBuilder":
        """Set the subgraph inputs (default: non-constant tensors that no operator produces)."""
        self._inputs = tuple(self._check(n) for n in names)
        return self

    def outputs(self, *names: str) -> "TFLiteBuilder":
        """Set the subgraph outputs (default: produced tensors that no operator consumes)."""
        self._outputs = tuple(self._check(n) for n in names)
        return self

    def _lookup(self, name: str) -> int:
        if name not in self._index:
            raise KeyError(f"unknown tensor {name!r}")
        return self._index[name]

    def _check(self, name: str) -> str:
        self._lookup(name)
        return name

    def _default_io(self) -> tuple[list[int], list[int]]:
        produced = {i for op in self._operators for i in op.outputs}
        consumed = {i for op in self._operators for i in op.inputs}
        inputs = [i for i, t in enumerate(self._tensors) if t.data is None and not t.variable and i not in produced]
        outputs = [i for i in range(len(self._tensors)) if i in produced and i not in consumed]
        if self._inputs is not None:
            inputs = [self._index[n] for n in self._inputs]
        if self._outputs is not None:
            outputs = [self._index[n] for n in self._outputs]
        return inputs, outputs

    # -- serialization --------------------------------------------------------------------------------

    def build(self) -> bytes:
        """Serialize the model; the same builder calls give the same bytes."""
        fb = flatbuffers.Builder(1024)
        graphs = [self, *self._subgraphs]
        codes = list(dict.fromkeys(op.opcode for g in graphs for op in g._operators))  # first-use order

        # Buffers: 0 is the empty sentinel, then one per constant tensor in tensor order (subgraph by subgraph).
        buffer_data: list[bytes | None] = [None]
        buffer_of: list[dict[int, int]] = []
        for g in graphs:
            buffer_of.append({})
            for index, t in enumerate(g._tensors):
                if t.data is not None:
                    buffer_of[-1][index] = len(buffer_data)
                    buffer_data.append(t.data)
        buffers = [self._buffer(fb, data) for data in buffer_data]
        subgraphs = [g._subgraph(fb, codes, where, "main" if k == 0 else f"subgraph{k}")
                     for k, (g, where) in enumerate(zip(graphs, buffer_of))]

        opcodes = []
        for code, custom in codes:
            custom_code = fb.CreateString(custom) if custom is not None else None
            tflite.OperatorCodeStart(fb)
            if custom_code is not None:
                tflite.OperatorCodeAddCustomCode(fb, custom_code)
            tflite.OperatorCodeAddDeprecatedBuiltinCode(fb, min(code, _GREATER_OP_CODES))
            tflite.OperatorCodeAddBuiltinCode(fb, code)
            tflite.OperatorCodeAddVersion(fb, 1)
            opcodes.append(tflite.OperatorCodeEnd(fb))

        opcodes_vec = self._offsets(fb, tflite.ModelStartOperatorCodesVector, opcodes)
        subgraphs_vec = self._offsets(fb, tflite.ModelStartSubgraphsVector, subgraphs)
        buffers_vec = self._offsets(fb, tflite.ModelStartBuffersVector, buffers)
        description = fb.CreateString(self._description)
        tflite.ModelStart(fb)
        tflite.ModelAddVersion(fb, SCHEMA_VERSION)
        tflite.ModelAddOperatorCodes(fb, opcodes_vec)
        tflite.ModelAddSubgraphs(fb, subgraphs_vec)
        tflite.ModelAddDescription(fb, description)
        tflite.ModelAddBuffers(fb, buffers_vec)
        fb.Finish(tflite.ModelEnd(fb), file_identifier=FILE_IDENTIFIER)
        return bytes(fb.Output())

    def _subgraph(self, fb, codes: list[tuple[int, str | None]], buffer_of: dict[int, int], name: str) -> int:
        tensors = [self._tensor(fb, t, buffer_of.get(i, 0)) for i, t in enumerate(self._tensors)]
        operators = [self._operator(fb, op, codes.index(op.opcode)) for op in self._operators]
        graph_inputs, graph_outputs = self._default_io()

        tensors_vec = self._offsets(fb, tflite.SubGraphStartTensorsVector, tensors)
        inputs_vec = self._ints(fb, tflite.SubGraphStartInputsVector, graph_inputs)
        outputs_vec = self._ints(fb, tflite.SubGraphStartOutputsVector, graph_outputs)
        operators_vec = self._offsets(fb, tflite.SubGraphStartOperatorsVector, operators)
        subgraph_name = fb.CreateString(name)
        tflite.SubGraphStart(fb)
        tflite.SubGraphAddTensors(fb, tensors_vec)
        tflite.SubGraphAddInputs(fb, inputs_vec)
        tflite.SubGraphAddOutputs(fb, outputs_vec)
        tflite.SubGraphAddOperators(fb, operators_vec)
        tflite.SubGraphAddName(fb, subgraph_name)
        return tflite.SubGraphEnd(fb)

    @staticmethod
    def _aligned_bytes(fb: flatbuffers.Builder, data: bytes) -> int:
        """A [ubyte] vector whose payload starts on a DATA_ALIGNMENT boundary (CreateByteVector only
        aligns to 4), so int32/float constants can be read in place."""
        fb.StartVector(1, len(data), DATA_ALIGNMENT)
        fb.head = fb.Head() - len(data)
        fb.Bytes[fb.Head():fb.Head() + len(data)] = data
        return fb.EndVector()

    def _buffer(self, fb, data: bytes | None) -> int:
        vector = self._aligned_bytes(fb, data) if data else None
        tflite.BufferStart(fb)
        if vector is not None:
            tflite.BufferAddData(fb, vector)
        return tflite.BufferEnd(fb)

    def _tensor(self, fb, t: _Tensor, buffer: int) -> int:
        name = fb.CreateString(t.name)
        shape = fb.CreateNumpyVector(np.asarray(t.shape, dtype=np.int32))
        quant = None
        if t.quant is not None:
            scale = fb.CreateNumpyVector(np.asarray(t.quant.scales, dtype=np.float32))
            zero_point = fb.CreateNumpyVector(np.asarray(t.quant.zero_points, dtype=np.int64))
            tflite.QuantizationParametersStart(fb)
            tflite.QuantizationParametersAddScale(fb, scale)
            tflite.QuantizationParametersAddZeroPoint(fb, zero_point)
            if t.quant.axis is not None:
                tflite.QuantizationParametersAddQuantizedDimension(fb, t.quant.axis)
            quant = tflite.QuantizationParametersEnd(fb)
        tflite.TensorStart(fb)
        tflite.TensorAddShape(fb, shape)
        tflite.TensorAddType(fb, _TENSOR_TYPES[t.dtype] if t.tf_type is None else t.tf_type)
        tflite.TensorAddBuffer(fb, buffer)
        tflite.TensorAddName(fb, name)
        if quant is not None:
            tflite.TensorAddQuantization(fb, quant)
        if t.variable:
            tflite.TensorAddIsVariable(fb, True)
        return tflite.TensorEnd(fb)

    def _operator(self, fb, op: _Operator, opcode_index: int) -> int:
        inputs = fb.CreateNumpyVector(np.asarray(op.inputs, dtype=np.int32))
        outputs = fb.CreateNumpyVector(np.asarray(op.outputs, dtype=np.int32))
        options = self._options(fb, op) if op.table else None
        custom = fb.CreateNumpyVector(np.frombuffer(op.custom_options, np.uint8)) if op.custom_options else None
        tflite.OperatorStart(fb)
        tflite.OperatorAddOpcodeIndex(fb, opcode_index)
        tflite.OperatorAddInputs(fb, inputs)
        tflite.OperatorAddOutputs(fb, outputs)
        if options is not None:
            tflite.OperatorAddBuiltinOptionsType(fb, getattr(BuiltinOptions, op.table))
            tflite.OperatorAddBuiltinOptions(fb, options)
        if custom is not None:
            tflite.OperatorAddCustomOptions(fb, custom)
        return tflite.OperatorEnd(fb)

    @staticmethod
    def _options(fb, op: _Operator) -> int:
        table = op.table
        vectors = {field: fb.CreateNumpyVector(np.asarray(value, dtype=np.int32))
                   for field, value in op.fields if isinstance(value, list)}
        vectors.update({field: fb.CreateString(value) for field, value in op.fields if isinstance(value, str)})
        getattr(tflite, f"{table}Start")(fb)
        for field, value in op.fields:
            getattr(tflite, f"{table}Add{field}")(fb, vectors.get(field, value))
        return getattr(tflite, f"{table}End")(fb)

    @staticmethod
    def _offsets(fb, start, offsets: list[int]) -> int:
        start(fb, len(offsets))
        for offset in reversed(offsets):
            fb.PrependUOffsetTRelative(offset)
        return fb.EndVector()

    @staticmethod
    def _ints(fb, start, values: list[int]) -> int:
        start(fb, len(values))
        for value in reversed(values):
            fb.PrependInt32(value)
        return fb.EndVector()
