"""An ONNX TensorProto (an initializer or a Constant's value) checked before anything reads its data.

onnx's numpy_helper trusts the proto: dims that do not match the data give a reshape error, short raw_data
a buffer error, an unknown data type a KeyError, int32_data of an INT8 tensor is cast with wrap-around
(a zero point of 1000 becomes -24), and external data is read from whatever path the file names. Here the
declared element count is computed from the dims with Python integers (no allocation, no overflow) and held
against the bytes or values actually stored, every stored value against its element type's range, and data
outside the file is refused: a model must be self-contained.
"""

from __future__ import annotations

from math import prod

from ...errors import CompileError
from .names import shown

# What a 32-bit target can address in one object: sizes beyond it wrap in size_t and ptrdiff_t fields.
MAX_TENSOR_BYTES = 2**31 - 1
MAX_DIM = 2**31 - 1

# data type code -> (name, bytes per element, the typed field that stores it, the range of stored values)
_INT32 = "int32_data"
ELEMENT_TYPES = {
    1: ("FLOAT", 4, "float_data", None),
    2: ("UINT8", 1, _INT32, (0, 255)),
    3: ("INT8", 1, _INT32, (-128, 127)),
    4: ("UINT16", 2, _INT32, (0, 65535)),
    5: ("INT16", 2, _INT32, (-32768, 32767)),
    6: ("INT32", 4, _INT32, None),
    7: ("INT64", 8, "int64_data", None),
    9: ("BOOL", 1, _INT32, (0, 1)),
    10: ("FLOAT16", 2, _INT32, (0, 65535)),  # bit patterns
    11: ("DOUBLE", 8, "double_data", None),
    12: ("UINT32", 4, "uint64_data", (0, 2**32 - 1)),
    13: ("UINT64", 8, "uint64_data", None),
    16: ("BFLOAT16", 2, _INT32, (0, 65535)),
}
TYPED_FIELDS = ("float_data", "int32_data", "int64_data", "double_data", "uint64_data", "string_data")


def type_name(code: int) -> str:
    from onnx import TensorProto

    try:
        return TensorProto.DataType.Name(code)
    except ValueError:
        return f"unknown data type {code}"


def element_type(code: int, what: str, where: str) -> tuple[str, int, str, tuple[int, int] | None]:
    """(name, bytes, field, range) of a tensor element type Micro Relay can read, else a CompileError."""
    if code in ELEMENT_TYPES:
        return ELEMENT_TYPES[code]
    from onnx import TensorProto

    if code not in TensorProto.DataType.values():
        raise CompileError(f"{what} has unknown data type {code}", where)
    if code == TensorProto.UNDEFINED:
        raise CompileError(f"{what} has no data type (UNDEFINED)", where)
    if code == TensorProto.STRING:
        raise CompileError(f"{what} holds STRING data; Micro Relay takes numeric tensors only", where)
    raise CompileError(f"{what} has data type {type_name(code)}, which Micro Relay does not take", where)


def checked_size(dims, itemsize: int, what: str, where: str) -> int:
    """The element count of a shape, refused when a dimension is negative or beyond int32, or the tensor
    is larger than a 32-bit target can address."""
    dims = [int(d) for d in dims]
    for axis, d in enumerate(dims):
        if d < 0:
            raise CompileError(f"{what} has a negative dimension {d} at axis {axis}", where)
        if d > MAX_DIM:
            raise CompileError(f"{what} has dimension {d} at axis {axis}, beyond what int32 holds ({MAX_DIM})",
                               where)
    count = prod(dims)
    if count * itemsize > MAX_TENSOR_BYTES:
        raise CompileError(f"{what} has shape {dims}: {count * itemsize} bytes, more than a 32-bit target "
                           f"addresses in one tensor ({MAX_TENSOR_BYTES})", where)
    return count


def check_tensor(tensor, what: str, where: str) -> None:
    """Refuse a TensorProto whose data cannot be read as declared (see the module docstring)."""
    if tensor.data_location == 1 or len(tensor.external_data):  # TensorProto.EXTERNAL
        location = next((e.value for e in tensor.external_data if e.key == "location"), "")
        raise CompileError(f"{what} keeps its data in the external file {shown(location)}; the model must be "
                           f"self-contained (save it with onnx.save_model(..., save_as_external_data=False))",
                           where)
    if tensor.HasField("segment"):
        raise CompileError(f"{what} is a segment of a larger tensor, which ONNX runtimes do not read", where)
    name, itemsize, field, bounds = element_type(tensor.data_type, what, where)
    count = checked_size(tensor.dims, itemsize, what, where)
    stored = [f for f in TYPED_FIELDS if len(getattr(tensor, f))]
    if tensor.HasField("raw_data"):
        if stored:
            raise CompileError(f"{what} has both raw_data and {stored[0]}", where)
        if len(tensor.raw_data) != count * itemsize:
            raise CompileError(f"{what} has dims {list(tensor.dims)} ({count * itemsize} bytes of {name}) but "
                               f"{len(tensor.raw_data)} bytes of raw_data", where)
        return
    if any(f != field for f in stored):
        other = next(f for f in stored if f != field)
        raise CompileError(f"{what} is {name} but stores its values in {other} (expected {field})", where)
    values = getattr(tensor, field)
    if len(values) != count:
        raise CompileError(f"{what} has dims {list(tensor.dims)} ({count} elements) but {len(values)} values in "
                           f"{field}", where)
    if bounds is not None and values:
        low, high = min(values), max(values)
        bad = low if low < bounds[0] else high if high > bounds[1] else None
        if bad is not None:
            raise CompileError(f"{what} holds {bad} in {field}, outside {name}'s range [{bounds[0]}, {bounds[1]}]",
                               where)
