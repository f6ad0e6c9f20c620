""".npy and .npz files a user gives (calibration samples, `micro-relay run --input`), read without trusting
their headers.

numpy's own loader allocates the array an .npy header describes before it reads the data, so a 100-byte
file claiming 2^40 elements asks for terabytes. Here every header is read first (numpy.lib.format's
read_magic and read_array_header_*) and its size checked against the bytes that can follow it: the file's
size for an .npy, the member's size in the zip directory for an .npz member (whose compressed size must fit
in the file). The data is then read in full, so memory grows only with bytes that exist. Only regular files
are opened (a FIFO would block), and arrays of Python objects are refused (no pickles).
"""

from __future__ import annotations

import math
import zipfile
import zlib
from pathlib import Path

import numpy as np
from numpy.lib import format as npy_format

from .errors import CompileError
from .input_files import require_regular_file

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)  # what numpy.savez and savez_compressed write


def load_arrays(path: str | Path, label: str) -> np.ndarray | dict[str, np.ndarray]:
    """One (read-only) array from an .npy, or arrays by key (the member name without .npy) from an .npz.
    `label` names the file's role in errors: 'calibration', 'input array'."""
    path = Path(path)
    where = str(path)
    try:
        require_regular_file(path, label)
        with open(path, "rb") as handle:
            size = path.stat().st_size
            head = handle.read(len(NPY_MAGIC))
            handle.seek(0)
            if head == NPY_MAGIC:
                return _read_npy(handle, size, label)
            if head[:4] in ZIP_MAGICS:
                return _read_npz(handle, size, label)
    except FileNotFoundError:
        raise CompileError(f"{label} file not found", where) from None
    except CompileError as exc:
        raise CompileError(exc.what, exc.where or where) from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise CompileError(f"cannot read {label} data as .npy or .npz: {first}", where) from None
    raise CompileError(f"cannot read {label} data as .npy or .npz: neither an .npy header nor a zip archive", where)


def _read_npy(stream, available: int, label: str, member: str = "") -> np.ndarray:
    """The array at the stream's position; `available` bytes follow that position (header included)."""
    start = stream.tell()
    of = f" member '{member}'" if member else ""
    version = npy_format.read_magic(stream)
    if version == (1, 0):
        shape, fortran_order, dtype = npy_format.read_array_header_1_0(stream)
    elif version == (2, 0):
        shape, fortran_order, dtype = npy_format.read_array_header_2_0(stream)
    else:
        raise CompileError(f"{label} data{of} has .npy format version {version[0]}.{version[1]}; "
                           f"expected 1.0 or 2.0")
    if dtype.hasobject:
        raise CompileError(f"cannot read {label} data{of}: it holds Python objects, not numbers")
    if any(d < 0 for d in shape):
        raise CompileError(f"cannot read {label} data{of}: its header gives a negative dimension {shape}")
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    data_bytes = available - (stream.tell() - start)
    if nbytes > data_bytes:
        raise CompileError(f"{label} data{of} header claims a {dtype} array of shape {shape} ({nbytes} bytes) "
                           f"but only {max(data_bytes, 0)} bytes follow it")
    data = stream.read(nbytes)
    if len(data) != nbytes:
        raise CompileError(f"{label} data{of} ends after {len(data)} of the {nbytes} bytes its header claims")
    array = np.frombuffer(data, dtype=dtype, count=count)
    return array.reshape(shape[::-1]).transpose() if fortran_order else array.reshape(shape)


def _read_npz(handle, size: int, label: str) -> dict[str, np.ndarray]:
    arrays = {}
    with zipfile.ZipFile(handle) as archive:
        for info in archive.infolist():
            if info.compress_type not in ZIP_METHODS:
                raise CompileError(f"{label} data member '{info.filename}' uses zip compression method "
                                   f"{info.compress_type}; expected stored or deflated (numpy.savez)")
            if info.header_offset + info.compress_size > size or (
                    info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size):
                raise CompileError(f"{label} data member '{info.filename}' claims more bytes than the file holds")
            key = info.filename.removesuffix(".npy")
            with archive.open(info) as stream:
                if stream.read(len(NPY_MAGIC)) != NPY_MAGIC:
                    raise CompileError(f"{label} data member '{info.filename}' is not an .npy array")
            with archive.open(info) as stream:
                arrays[key] = _read_npy(stream, info.file_size, label, info.filename)
    return arrays
