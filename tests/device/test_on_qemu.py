"""`micro-relay device` against the model server on QEMU mps2-an386 (Cortex-M4): run, profile and compare on
the project's own keyword-spotting example and on the shared kws_ref_model; a broken kernel named by compare,
an out-of-bounds one by the debug build's guard; a board reached through a serial port (QEMU's pty); and the
errors: a wrong port, a device that does not answer, damaged frames (retried, then reported), another model.

The broken kernels exist only here: NAME.c's one average-pool call is sent to a wrapper (a define at the top of
NAME.c, Where.model_defines) that runs the real kernel and then changes one output value or writes past it.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import time

import numpy as np
import pytest

from conftest import shared_model
from device.native_sim_stand_in import write_native_sim_stand_in
from micro_relay.bench.measure import seeded_inputs
from micro_relay.cli import main
from micro_relay.device.commands import Device, DeviceError
from micro_relay.device.qemu import QEMU_FLAGS, build_server, qemu_server
from micro_relay.device.session import Where, compare_on, compile_for, invoke_on, open_device, read_outputs
from micro_relay.examples.kws_model import build_kws_model
from micro_relay.examples.sine_model import build_sine_model
from micro_relay.reference import run as reference_run
from support.tflm_oracle import tflm_run

pytestmark = pytest.mark.usefixtures("arm_tools")

BOARD = "mps2-an386"

WRAPPER = r"""
#include "micro_relay/avg_pool2d.h"

int test_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out);

/* The real kernel, then one wrong value (BREAK_VALUE) or one byte past the output (BREAK_BOUNDS). */
int test_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out)
{
    const int status = mr_avg_pool2d_s8(p, in, out);
#if defined(BREAK_VALUE)
    out[0] = (int8_t)(out[0] ^ 1);
#elif defined(BREAK_BOUNDS)
    out[p->batches * p->out_h * p->out_w * p->channels] = 0x11;
#endif
    return status;
}
"""


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    path = tmp_path_factory.mktemp("example") / "kws_example.tflite"
    path.write_bytes(build_kws_model())
    return path


@pytest.fixture(scope="module")
def sine(tmp_path_factory):
    path = tmp_path_factory.mktemp("sine") / "sine.tflite"
    path.write_bytes(build_sine_model())
    return path


def _models(example, sine):
    return {"kws_example": example, "kws_ref_model": shared_model("mlcommons_tiny/kws_ref_model.tflite"),
            "demo_sine": sine}  # `make demo`'s model


@pytest.mark.parametrize("which", ["kws_example", "kws_ref_model", "demo_sine"])
def test_run_profile_and_compare(which, example, sine, tmp_path, capsys):
    path = _models(example, sine)[which]
    out = tmp_path / "y.npy"
    assert main(["device", "run", str(path), "--qemu", BOARD, "--seed", "5", "--output", str(out)]) == 0
    graph = compile_for(str(path), Where(qemu=BOARD)).graph
    inputs = seeded_inputs(graph, 5)
    (want,) = tflm_run(path.read_bytes(), inputs)
    np.testing.assert_array_equal(np.load(out), want.reshape(np.load(out).shape))
    capsys.readouterr()

    assert main(["device", "profile", str(path), "--qemu", BOARD, "--json"]) == 0
    profile = json.loads(capsys.readouterr().out)
    assert profile["unit"] == "instructions" and len(profile["layers"]) == len(graph.nodes)
    # within 2%; the invoke's own work outside the layers (argument checks) is some 80 instructions, which is
    # more than 2% only of a model as small as the demo's (about 2,500 instructions in all)
    assert abs(profile["layers_sum"] - profile["invoke"]) <= max(0.02 * profile["invoke"], 100)
    layers = [r for r in profile["layers"] if r["op"] in ("nn.conv2d", "nn.dense")]
    assert layers and all(r["instructions"] > r["macs"] / 4 for r in layers)
    assert all("arm_dsp" in r["kernel"] for r in layers if r["op"] == "nn.conv2d")

    assert main(["device", "compare", str(path), "--qemu", BOARD, "--json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert compared["first_divergence"] is None and compared["tflite_micro"] == {"outputs_match": True}


def _wrapped(tmp_path, define: str) -> Where:
    wrapper = tmp_path / "test_wrapper.c"
    wrapper.write_text(f"#define {define}\n" + WRAPPER)
    return Where(qemu=BOARD, model_defines=("mr_avg_pool2d_s8=test_avg_pool2d_s8",), extra_sources=(wrapper,))


def _pool_step(model) -> int:
    return next(s for s, i in enumerate(model.plan.order) if model.graph.nodes[i].op == "nn.avg_pool2d")


def test_compare_names_the_broken_layer(example, tmp_path):
    where = _wrapped(tmp_path, "BREAK_VALUE")
    model = compile_for(str(example), where, debug=True)
    with open_device(model, where) as device:
        result = compare_on(device, model, str(example), seeded_inputs(model.graph, 0))
    first = result["first_divergence"]
    assert (first["step"], first["op"], first["against"]) == (_pool_step(model), "nn.avg_pool2d", "reference")
    assert first["elements_differing"] == 1 and first["first"][0]["index"] == [0, 0, 0, 0]
    assert first["first"][0]["device"] == first["first"][0]["reference"] ^ 1


def test_the_guard_names_the_layer_that_wrote_out_of_bounds(example, tmp_path):
    where = _wrapped(tmp_path, "BREAK_BOUNDS")
    model = compile_for(str(example), where, debug=True)
    with open_device(model, where) as device:
        result = invoke_on(device, model, seeded_inputs(model.graph, 0))
        compared = compare_on(device, model, str(example), seeded_inputs(model.graph, 0))
    assert (result.status, result.failed_layer) == (6, _pool_step(model))
    assert compared["first_divergence"]["step"] == _pool_step(model)
    assert "MR_ERR_GUARD (6) at step" in compared["first_divergence"]["reason"]


@pytest.fixture
def sine_on_a_pty(sine, tmp_path):
    """QEMU running the sine model's server with its UART on a pty, as a board on a serial port looks."""
    model = compile_for(str(sine), Where(qemu=BOARD))
    elf = build_server(model, BOARD, tmp_path)
    qemu = subprocess.Popen(["qemu-system-arm", "-machine", BOARD, *QEMU_FLAGS, "-serial", "pty", "-kernel", str(elf)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        said, deadline = b"", time.monotonic() + 20
        while b"/dev/pts/" not in said or not said.endswith(b"\n"):
            assert time.monotonic() < deadline, said
            if select.select([qemu.stdout], [], [], 1)[0]:
                said += os.read(qemu.stdout.fileno(), 256)
        yield re.search(rb"(/dev/pts/\d+)", said).group(1).decode()
    finally:
        qemu.terminate()
        qemu.wait(10)


def test_a_board_on_a_serial_port(sine, example, sine_on_a_pty, tmp_path, capsys):
    out, x = tmp_path / "y.npy", tmp_path / "x.npy"
    graph = compile_for(str(sine), Where(qemu=BOARD)).graph
    np.save(x, np.array([[-20]], np.int8))
    argv = ["--port", sine_on_a_pty, "--target", "cortex-m4", "--timeout", "10"]
    assert main(["device", "run", str(sine), *argv, "--input", str(x), "--output", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out), reference_run(graph, [np.load(x)])[0])
    capsys.readouterr()
    # the same board asked to run another model: its hash is refused
    assert main(["device", "run", str(example), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "runs model 'sine'" in err and "not 'kws_example'" in err


def test_a_wrong_port_and_a_silent_one(sine, capsys):
    assert main(["device", "run", str(sine), "--port", "/dev/no-such-port"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: cannot open the serial port") and len(err.splitlines()) == 1
    master, slave = os.openpty()
    try:
        assert main(["device", "run", str(sine), "--port", os.ttyname(slave), "--timeout", "0.5"]) == 2
    finally:
        os.close(master)
        os.close(slave)
    err = capsys.readouterr().err.strip()
    assert "did not answer HELLO" in err and len(err.splitlines()) == 1


def _damaging(function, damaged: int, byte: int):
    """`function` (a transport's write or read) with the first `damaged` results (writes: frames) flipped at
    `byte`."""
    left = [damaged]

    def wrapper(data_or_n):
        if isinstance(data_or_n, int):  # read(n): damage the n > 5 reads (a reply's payload and CRC)
            data = function(data_or_n)
            if data_or_n > 5 and left[0] > 0:
                left[0] -= 1
                return data[:byte] + bytes([data[byte] ^ 0x40]) + data[byte + 1:]
            return data
        if left[0] > 0:
            left[0] -= 1
            data_or_n = data_or_n[:byte] + bytes([data_or_n[byte] ^ 0x40]) + data_or_n[byte + 1:]
        return function(data_or_n)

    return wrapper


def test_damaged_frames_are_retried_then_reported(sine, tmp_path):
    model = compile_for(str(sine), Where(qemu=BOARD))
    elf = build_server(model, BOARD, tmp_path)
    with qemu_server(elf, BOARD, 10) as transport:
        device = Device(transport, "QEMU")
        write, read = transport.write, transport.read
        transport.write = _damaging(write, 2, 1)  # two requests damaged: the device says so, the host resends
        assert device.hello()[0].name == "sine" and device.crc_errors == 2
        transport.write, transport.read = write, _damaging(read, 1, 2)  # one reply damaged on the way back
        assert device.hello()[0].name == "sine" and device.crc_errors == 3
        transport.read, transport.timeout = read, 1.0
        transport.write = _damaging(write, 1, 4)  # a damaged length: the device waits, the host flushes it
        assert device.hello()[0].name == "sine"
        transport.write = _damaging(write, 3, 1)  # every attempt damaged
        with pytest.raises(DeviceError, match="HELLO failed 3 times: the device saw a CRC error"):
            device.hello()
        transport.write = write
        result = invoke_on(device, model, seeded_inputs(model.graph, 0))  # the channel still works
        assert result.status == 0


def test_a_repeated_invoke_replays_and_a_new_one_runs(tmp_path):
    """On the shared MNIST LSTM, whose state advances with every run: an INVOKE sent again with its sequence
    number (a retry) leaves the outputs of the first run, the next INVOKE gives the second run's."""
    from micro_relay.reference import Session

    path = shared_model("tflite_micro/trained_lstm_int8.tflite")
    where = Where(qemu=BOARD)
    model = compile_for(str(path), where, name="mnist_lstm")
    shape = model.graph.type_of(model.graph.inputs[0]).shape
    inputs = [np.random.default_rng(0).integers(-128, 128, shape).astype(np.int8)]  # outputs that change run to run
    session = Session(model.graph)
    first, second = session.invoke([x.copy() for x in inputs]), session.invoke([x.copy() for x in inputs])
    assert not np.array_equal(first[0], second[0])
    with open_device(model, where) as device:
        ran = invoke_on(device, model, inputs)
        device.sequence -= 1  # the same request again, as after a lost reply
        assert device.invoke() == ran
        np.testing.assert_array_equal(read_outputs(device, model)[0], first[0])
        invoke_on(device, model, inputs)
        np.testing.assert_array_equal(read_outputs(device, model)[0], second[0])


def test_a_native_sim_program_is_started_and_reached_on_its_pty(sine, tmp_path, capsys):
    """--native-sim BUILD_DIR starts BUILD_DIR/zephyr/zephyr.exe, reads the pseudo-terminal it names and runs there
    (a stand-in program here; tests/zephyr/test_zephyr_model_server.py runs the real one); the program is
    stopped after. A folder without the program, and a program that names no pty, are one line and exit 2."""
    model = compile_for(str(sine), Where(qemu=BOARD))
    elf = build_server(model, BOARD, tmp_path / "firmware")
    write_native_sim_stand_in(tmp_path / "build" / "zephyr" / "zephyr.exe", elf, BOARD)
    x, out = tmp_path / "x.npy", tmp_path / "y.npy"
    np.save(x, np.array([[37]], np.int8))
    argv = ["--native-sim", str(tmp_path / "build"), "--target", "cortex-m4", "--timeout", "10"]
    assert main(["device", "run", str(sine), *argv, "--input", str(x), "--output", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out), reference_run(model.graph, [np.load(x)])[0])
    assert "on native_sim" in capsys.readouterr().err
    assert subprocess.run(["pgrep", "-f", str(elf)], capture_output=True).returncode == 1  # stopped
    assert main(["device", "run", str(sine), "--native-sim", str(tmp_path / "firmware")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no native_sim program here" in err
    silent = tmp_path / "silent.exe"
    silent.write_text("#!/bin/sh\necho started\nsleep 30\n")
    silent.chmod(0o755)
    assert main(["device", "run", str(sine), "--native-sim", str(silent), "--timeout", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "named no UART pseudo-terminal (it said: started)" in err
