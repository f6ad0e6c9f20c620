"""samples/model_server: the model server as a Zephyr application, driven by `micro-relay device` on its UART.

The host is given the build folder alone (`-d BUILD`): the model and its options come from the record the
server step leaves there, and the firmware is started from it (native_sim's zephyr.exe; qemu_cortex_m3's
zephyr.elf in QEMU, its UART on a socket). A board's serial port is tried too: QEMU started by the test with
the UART on a pseudo-terminal, given to `--port`. The outputs on the device are TFLite Micro's for the same input
(its interpreter, the oracle); the profile's layers add up to the whole invoke; the debug build's compare finds
no divergence from the reference interpreter and TFLite Micro; a firmware built from another model is refused by
its hash. Boards: MICRO_RELAY_ZEPHYR_BOARDS.
"""

from __future__ import annotations

import contextlib
import json
import re
import select
import subprocess
import time

import numpy as np
import pytest

from micro_relay.cli import main
from micro_relay.emulate.qemu import qemu_command
from support.tflm_oracle import tflm_run
from zephyr_env import REPO, boards, new_build

TARGET = {"native_sim": "generic", "qemu_cortex_m3": "cortex-m3", "mps2/an386": "cortex-m4"}  # the module's pick
# The debug server keeps every tensor (kws: a 72,688 B arena), more than qemu_cortex_m3's 64 KiB of RAM: its
# build stops with the budget breakdown. compare runs on native_sim and on mps2/an386 (4 MiB), in QEMU.
DEBUG_BOARDS = ("native_sim", "mps2/an386")
_builds = {}


def server_build(board, tmp_path_factory, debug=False):
    if board not in TARGET:
        pytest.skip(f"no model-server run known for board {board}")
    if (board, debug) not in _builds:
        build_dir = tmp_path_factory.mktemp(f"model_server-{board.replace('/', '_')}{'-debug' if debug else ''}")
        options = ("-DMICRO_RELAY_SERVER_DEBUG=1",) if debug else ()
        build = new_build(REPO / "samples" / "model_server", board, build_dir).build(pristine=True, cmake_args=options)
        assert f"Micro Relay model server: target {TARGET[board]}" in build.log
        _builds[board, debug] = build
    return _builds[board, debug]


@contextlib.contextmanager
def qemu_on_a_pty(build, timeout=30.0):
    """The build's image in QEMU (the machine `west micro-relay qemu` picks for its board), its UART on a
    pseudo-terminal: yields the pty's path."""
    command = [*qemu_command(build.build_dir, ["-icount", "shift=6,align=off,sleep=off"], serial=("-serial", "pty")),
               "-monitor", "none"]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        said, deadline = b"", time.monotonic() + timeout
        while time.monotonic() < deadline and not re.search(rb"redirected to (/dev/\S+)", said):
            if select.select([process.stdout], [], [], 0.2)[0]:
                chunk = process.stdout.read1(4096)
                assert chunk, said.decode(errors="replace")
                said += chunk
        found = re.search(rb"redirected to (/dev/\S+)", said)
        assert found, said.decode(errors="replace")
        yield found.group(1).decode()
    finally:
        process.terminate()
        process.wait(10)
        process.stdout.close()


@contextlib.contextmanager
def device_place(board, build):
    if board == "native_sim":
        yield ["--native-sim", str(build.build_dir)]
    else:
        with qemu_on_a_pty(build) as pty:
            yield ["--port", pty]


@pytest.mark.parametrize("board", boards())
def test_the_outputs_on_the_device_are_tflite_micros(board, tmp_path_factory, tmp_path, capsys):
    build = server_build(board, tmp_path_factory)
    model = build.build_dir / "kws.tflite"
    x = np.random.default_rng(7).integers(-128, 128, size=(1, 49, 10, 1), dtype=np.int8)
    np.save(tmp_path / "x.npy", x)
    code = main(["device", "run", "-d", str(build.build_dir), "--input", str(tmp_path / "x.npy"),
                 "--output", str(tmp_path / "y.npy")])
    err = capsys.readouterr().err
    assert code == 0, err
    (expected,) = tflm_run(model.read_bytes(), [x])
    got = np.load(tmp_path / "y.npy")
    assert got.dtype == expected.dtype and np.array_equal(got, expected.reshape(got.shape)), (got, expected)
    assert re.search(r"ran .* timer cycles", err), err


@pytest.mark.parametrize("board", [b for b in boards() if b != "native_sim"])  # native_sim's timer stands still
def test_the_profile_adds_up_to_the_whole_invoke(board, tmp_path_factory, capsys):
    build = server_build(board, tmp_path_factory)
    code = main(["device", "profile", "-d", str(build.build_dir), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = json.loads(out)
    assert rows["unit"] == "timer cycles" and rows["invoke"] > 0
    assert abs(rows["layers_sum"] - rows["invoke"]) <= 0.02 * rows["invoke"], rows
    print(f"model_server on {board}: {rows['invoke']} timer cycles, layers {rows['layers_sum']}")


@pytest.mark.parametrize("board", boards())
def test_a_firmware_of_another_model_is_refused(board, tmp_path_factory, tmp_path, capsys):
    from micro_relay.examples.sine_model import build_sine_model

    build = server_build(board, tmp_path_factory)
    other = tmp_path / "sine.tflite"
    other.write_bytes(build_sine_model())
    with device_place(board, build) as place:
        code = main(["device", "run", str(other), *place, "--target", TARGET[board]])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "runs model 'kws'" in err and "not 'sine'" in err, err


@pytest.mark.parametrize("board", DEBUG_BOARDS)
def test_the_debug_build_compares_equal_layer_by_layer(board, tmp_path_factory, capsys):
    build = server_build(board, tmp_path_factory, debug=True)
    code = main(["device", "compare", "-d", str(build.build_dir), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, (out, err)
    result = json.loads(out)
    assert result["first_divergence"] is None and result["invoke_status"] == "MR_OK", result
    assert result["tflite_micro"] == {"outputs_match": True}, result
    assert result["layers_compared"] > 5


@pytest.mark.parametrize("board", boards())
def test_a_board_on_its_serial_port(board, tmp_path_factory, tmp_path, capsys):
    """--port (and --native-sim) with the model named: what a board flashed from this build is driven with."""
    build = server_build(board, tmp_path_factory)
    with device_place(board, build) as place:
        code = main(["device", "run", str(build.build_dir / "kws.tflite"), *place, "--target", TARGET[board]])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("output 0 ") and "int8[1, 12]" in out, out
