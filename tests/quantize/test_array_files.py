""".npy/.npz files from users (calibration samples, `micro-relay run --input`): a header that claims more
data than the file holds (a 2^40-element array in a few hundred bytes) is refused before anything is
allocated, with one line naming what and where and nothing written; honest files of every numpy flavour load.
"""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from numpy.lib import format as npy_format

from micro_relay.array_files import load_arrays
from micro_relay.cli import main
from support.tflite_models import fully_connected_model

HUGE = 2 ** 40


def npy_bytes(shape, descr="<f4", data=b"\0" * 16, version=(1, 0)) -> bytes:
    buffer = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": tuple(shape)}
    (npy_format.write_array_header_1_0 if version == (1, 0) else npy_format.write_array_header_2_0)(buffer, header)
    return buffer.getvalue() + data


@pytest.fixture
def float_model(tmp_path):
    path = tmp_path / "models" / "fc.tflite"
    path.parent.mkdir()
    path.write_bytes(fully_connected_model(dtype="float32", input_shape=(1, 16), units=4))
    return path


def refused(capsys, tmp_path, argv, *fragments) -> str:
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    return lines[0]


def test_npy_header_claiming_2_to_the_40_elements(tmp_path, float_model, capsys):
    calibration = tmp_path / "huge.npy"
    calibration.write_bytes(npy_bytes((HUGE,)))
    refused(capsys, tmp_path, ["compile", float_model, "-o", tmp_path / "out", "--quantize", "int8",
                               "--calibration", calibration],
            f"calibration data header claims a float32 array of shape ({HUGE},) ({4 * HUGE} bytes) but only 16 "
            f"bytes follow it", f"({calibration})")


def test_npz_member_claiming_2_to_the_40_elements(tmp_path, float_model, capsys):
    calibration = tmp_path / "huge.npz"
    with zipfile.ZipFile(calibration, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("input.npy", npy_bytes((HUGE, 1, 16)))
    refused(capsys, tmp_path, ["compile", float_model, "-o", tmp_path / "out", "--quantize", "int8",
                               "--calibration", calibration],
            "calibration data member 'input.npy' header claims a float32 array", f"({calibration})")


def test_npz_directory_claiming_more_than_the_file(tmp_path, float_model, capsys):
    """A stored member whose zip directory entry claims 2 GB, in a file of a few hundred bytes."""
    calibration = tmp_path / "lying.npz"
    np.savez(calibration, input=np.zeros((2, 1, 16), np.float32))
    data = bytearray(calibration.read_bytes())
    central = data.index(b"PK\x01\x02")
    data[central + 20:central + 28] = struct.pack("<II", 0x7FFFFFF0, 0x7FFFFFF0)
    calibration.write_bytes(bytes(data))
    refused(capsys, tmp_path, ["compile", float_model, "-o", tmp_path / "out", "--quantize", "int8",
                               "--calibration", calibration],
            "member 'input.npy' claims more bytes than the file holds", f"({calibration})")


def test_run_input_claiming_2_to_the_40_elements(tmp_path, float_model, capsys):
    array = tmp_path / "x.npy"
    array.write_bytes(npy_bytes((1, HUGE)))
    refused(capsys, tmp_path, ["run", float_model, "--input", array, "--output", tmp_path / "y.npy"],
            "input array data header claims a float32 array of shape (1, 1099511627776)", f"({array})")


BAD_INPUTS = {
    "negative": (npy_bytes((-1, 16)), "negative dimension"),
    "truncated": (npy_bytes((1, 16), data=b"\0" * 60), "(64 bytes) but only 60 bytes follow it"),
    "objects": (npy_bytes((1,), descr="|O"), "holds Python objects"),
    "version": (b"\x93NUMPY\x07\x00" + b"\0" * 64, "has .npy format version 7.0; expected 1.0 or 2.0"),
    "junk": (b"just some text\n", "neither an .npy header nor a zip archive"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_run_inputs(tmp_path, float_model, capsys, case):
    content, message = BAD_INPUTS[case]
    array = tmp_path / f"{case}.npy"
    array.write_bytes(content)
    refused(capsys, tmp_path, ["run", float_model, "--input", array], message, f"({array})")


def test_run_input_must_be_one_array(tmp_path, float_model, capsys):
    np.savez(tmp_path / "x.npz", a=np.zeros((1, 16), np.float32))
    refused(capsys, tmp_path, ["run", float_model, "--input", tmp_path / "x.npz"], "must be one .npy")


def test_honest_files_load_as_numpy_wrote_them(tmp_path):
    rng = np.random.default_rng(3)
    fortran = np.asfortranarray(rng.standard_normal((3, 4, 5)).astype(np.float32))
    np.save(tmp_path / "f.npy", fortran)
    np.testing.assert_array_equal(load_arrays(tmp_path / "f.npy", "test"), fortran)
    (tmp_path / "v2.npy").write_bytes(npy_bytes((2, 2), "<f8", np.arange(4.0).tobytes(), version=(2, 0)))
    np.testing.assert_array_equal(load_arrays(tmp_path / "v2.npy", "test"), np.arange(4.0).reshape(2, 2))
    a, b = rng.standard_normal((4, 1, 8)), rng.integers(0, 9, (2, 3)).astype(np.int16)
    for save in (np.savez, np.savez_compressed):
        save(tmp_path / "s.npz", a=a, b=b, empty=np.zeros((0, 3)))
        loaded = load_arrays(tmp_path / "s.npz", "test")
        assert sorted(loaded) == ["a", "b", "empty"]
        np.testing.assert_array_equal(loaded["a"], a)
        np.testing.assert_array_equal(loaded["b"], b)
        assert loaded["empty"].shape == (0, 3)


def test_run_reads_its_input_and_writes_the_output(tmp_path, float_model, capsys):
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)
    np.save(tmp_path / "x.npy", x)
    assert main(["run", str(float_model), "--input", str(tmp_path / "x.npy"), "--output", str(tmp_path / "y.npy")]) == 0
    assert np.load(tmp_path / "y.npy").shape == (1, 4)


def test_fifo_as_calibration_file_is_refused(tmp_path, float_model):
    """In a real process with a timeout: numpy would block forever opening a FIFO for reading."""
    fifo = tmp_path / "cal.npy"
    os.mkfifo(fifo)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(float_model), "-o",
                             str(tmp_path / "out"), "--quantize", "int8", "--calibration", str(fifo)],
                            capture_output=True, text=True, timeout=120)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0] == f"error: calibration path is not a regular file (a FIFO) ({fifo})"
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def _limited_memory(limit: int = 1 << 30):
    import resource

    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def test_lying_npz_is_refused_within_1_gib_of_address_space(tmp_path, float_model):
    """A deflated member whose header claims 10^9 float32 (4 GB) and whose zip directory agrees, holding 64
    bytes: refused by a process that cannot map 1 GiB (numpy.load itself dies there with MemoryError)."""
    array = tmp_path / "lie.npz"
    with zipfile.ZipFile(array, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("x.npy", npy_bytes((1, 10 ** 9), data=b"\0" * 64))
    data = bytearray(array.read_bytes())
    central = data.index(b"PK\x01\x02")
    data[central + 24:central + 28] = struct.pack("<I", 0xFFFFFFF0)  # the directory claims ~4 GB unpacked
    array.write_bytes(bytes(data))
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "micro_relay", "compile", str(float_model), "-o", str(tmp_path / "out"),
               "--quantize", "int8", "--calibration", str(array)]
    control = subprocess.run([sys.executable, "-c", "import numpy, micro_relay.cli, micro_relay.compiler"],
                             env=env, preexec_fn=_limited_memory(), capture_output=True, timeout=120)
    if control.returncode != 0:
        pytest.skip("this interpreter does not start within 1 GiB of address space")
    result = subprocess.run(command, env=env, preexec_fn=_limited_memory(), capture_output=True, text=True,
                            timeout=120)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert "member 'x.npy' ends after 64 of the 4000000000 bytes its header claims" in lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("where", ["under_a_file", "missing_folder", "directory"])
def test_run_output_write_failures(tmp_path, float_model, capsys, where):
    np.save(tmp_path / "x.npy", np.zeros((1, 16), np.float32))
    (tmp_path / "notes.txt").write_text("a file\n")
    (tmp_path / "y.npy").mkdir()
    output = {"under_a_file": tmp_path / "notes.txt" / "y.npy", "missing_folder": tmp_path / "no" / "y.npy",
              "directory": tmp_path / "y.npy"}[where]
    refused(capsys, tmp_path, ["run", float_model, "--input", tmp_path / "x.npy", "--output", output],
            "the output path is a directory" if where == "directory" else "cannot write the outputs:",
            f"({output})")


def test_quantized_compile_that_cannot_write_prints_only_the_error(tmp_path, float_model, capsys):
    """The quantization report comes after the files are written: a write failure stays one line."""
    np.save(tmp_path / "cal.npy", np.random.default_rng(0).standard_normal((8, 1, 16)))
    (tmp_path / "notes.txt").write_text("a file\n")
    refused(capsys, tmp_path, ["compile", float_model, "-o", tmp_path / "notes.txt" / "out", "--quantize", "int8",
                               "--calibration", tmp_path / "cal.npy"],
            "a parent of the output folder is a file", "notes.txt")
    assert main(["compile", str(float_model), "-o", str(tmp_path / "out"), "--quantize", "int8", "--calibration",
                 str(tmp_path / "cal.npy")]) == 0
    assert "dB" in capsys.readouterr().err  # the report, when the compile succeeds
