"""`micro-relay device run|profile|compare -d BUILD`: a Zephyr build folder of samples/model_server names the
model, its compile options and the board, so the host needs nothing else.

The build folders here are made by hand, as Zephyr lays one out (zephyr/.config naming the board, the server's
sources in model_server/ from `micro-relay device server`), around model server firmware of the bench runner:
- "native_sim": zephyr/zephyr.exe is a stand-in serving on a pty (tests/zephyr runs the real program);
- "mps2/an386": zephyr/zephyr.elf is that firmware, started in QEMU as `west micro-relay qemu` would;
- "nrf52840dk/nrf52840": a real board, which must be flashed and given with --port.
tests/zephyr/test_zephyr_model_server.py does the same with real builds of the sample.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from device.native_sim_stand_in import write_native_sim_stand_in
from micro_relay.cli import main
from micro_relay.device.qemu import build_server
from micro_relay.device.session import Where, compile_for
from micro_relay.examples.sine_model import build_sine_model
from micro_relay.reference import run as reference_run

pytestmark = pytest.mark.usefixtures("arm_tools")

BOARD = "mps2-an386"
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture(scope="module")
def firmware(tmp_path_factory):
    """The sine model (in a build folder's place, as samples/model_server generates its model) and its server
    firmware for QEMU mps2-an386, compiled for cortex-m4."""
    work = tmp_path_factory.mktemp("firmware")
    model_path = work / "sine.tflite"
    model_path.write_bytes(build_sine_model())
    model = compile_for(str(model_path), Where(qemu=BOARD))
    return model_path, model, build_server(model, BOARD, work / "build")


def zephyr_build(tmp_path, firmware, board, debug=False):
    """A build folder for `board` holding the model, its server sources and record, and the firmware."""
    model_path, _, elf = firmware
    build = tmp_path / "build"
    (build / "zephyr").mkdir(parents=True)
    (build / "zephyr" / ".config").write_text(f'CONFIG_BOARD="{board.split("/")[0]}"\n'
                                              f'CONFIG_BOARD_TARGET="{board}"\n')
    shutil.copy(model_path, build / "sine.tflite")
    argv = ["device", "server", str(build / "sine.tflite"), "-o", str(build / "model_server"), "--target", "cortex-m4"]
    assert main([*argv, *(["--debug-guards"] if debug else [])]) == 0
    if board == "native_sim":
        write_native_sim_stand_in(build / "zephyr" / "zephyr.exe", elf, BOARD)
    else:
        shutil.copy(elf, build / "zephyr" / "zephyr.elf")
    return build


def test_the_server_records_what_the_host_needs(firmware, tmp_path):
    build = zephyr_build(tmp_path, firmware, "native_sim")
    record = json.loads((build / "model_server" / "model_server.json").read_text())
    assert record == {"model": "../sine.tflite", "name": "sine", "target": "cortex-m4", "kernels": "micro-relay",
                      "debug_guards": False}


@pytest.mark.parametrize("board", ["native_sim", "mps2/an386"])
def test_run_and_profile_from_the_build_folder(board, firmware, tmp_path, capsys):
    _, model, _ = firmware
    build = zephyr_build(tmp_path, firmware, board)
    x, out = tmp_path / "x.npy", tmp_path / "y.npy"
    np.save(x, np.array([[-51]], np.int8))
    assert main(["device", "run", "-d", str(build), "--input", str(x), "--output", str(out), "--timeout", "10"]) == 0
    np.testing.assert_array_equal(np.load(out), reference_run(model.graph, [np.load(x)])[0])
    started = "native_sim" if board == "native_sim" else f"QEMU {board}"
    assert f"ran {build / 'sine.tflite'} on {started}" in capsys.readouterr().err
    assert main(["device", "profile", "-d", str(build), "--json", "--timeout", "10"]) == 0
    profile = json.loads(capsys.readouterr().out)
    assert profile["model"] == "sine" and len(profile["layers"]) == len(model.plan.order)


def test_a_real_board_must_be_flashed_and_named(firmware, tmp_path, capsys):
    build = zephyr_build(tmp_path, firmware, "nrf52840dk/nrf52840")
    capsys.readouterr()
    assert main(["device", "run", "-d", str(build)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "board nrf52840dk/nrf52840 is not one this command starts" in err
    assert f"west flash -d {build}" in err and "--port" in err


def test_what_the_build_folder_cannot_give(firmware, tmp_path, capsys):
    build = zephyr_build(tmp_path, firmware, "native_sim")
    assert main(["device", "compare", "-d", str(build)]) == 2  # the build's server keeps no intermediates
    assert "compare needs the debug server: rebuild with -DMICRO_RELAY_SERVER_DEBUG=1" in capsys.readouterr().err
    assert main(["device", "run", "-d", str(build / "zephyr")]) == 2  # a folder without a server
    assert "no model server in this build" in capsys.readouterr().err
    (build / "model_server" / "model_server.json").write_text('{"model": 3}')
    assert main(["device", "run", "-d", str(build)]) == 2
    assert "the model server record lacks one of model" in capsys.readouterr().err
    assert main(["device", "run"]) == 2  # neither a model nor a build folder
    assert "name the model file, or a Zephyr build folder" in capsys.readouterr().err
    assert main(["device", "run", str(firmware[0])]) == 2  # a model, but nowhere to run it
    assert "say where the model server runs: --port, --qemu, --native-sim or -d BUILD" in capsys.readouterr().err


def test_west_runs_the_build_folder_here(firmware, tmp_path, monkeypatch, capsys):
    """`west micro-relay device run` (the west command's own entry point) uses ./build when it holds a model
    server and no -d is given; other folders and other device commands pass through as given."""
    if importlib.util.find_spec("west") is None:
        pytest.skip("west is not installed")
    spec = importlib.util.spec_from_file_location("micro_relay_cmd", SCRIPTS / "west_commands" / "micro_relay_cmd.py")
    command = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(command)
    west = command.MicroRelayCommand()
    monkeypatch.chdir(tmp_path)
    to_argv = west._device_argv
    assert to_argv(["device", "run", "--port", "/dev/ttyACM0"]) == ["device", "run", "--port", "/dev/ttyACM0"]
    _, model, _ = firmware
    zephyr_build(tmp_path, firmware, "native_sim")
    capsys.readouterr()
    x = np.array([[99]], np.int8)
    np.save(tmp_path / "x.npy", x)
    west.do_run(argparse.Namespace(command="device"), ["run", "--input", "x.npy", "--output", "y.npy"])
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), reference_run(model.graph, [x])[0])
    assert "on native_sim build" in capsys.readouterr().err
    assert to_argv(["device", "profile", "-d", "other"]) == ["device", "profile", "-d", "other"]
    assert to_argv(["device", "server", "m.tflite", "-o", "x"]) == ["device", "server", "m.tflite", "-o", "x"]
