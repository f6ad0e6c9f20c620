"""`micro-relay device server MODEL -o DIR`: the sources a board's own firmware links. Its mrs_model.h carries
the identity the host expects of that model, and the server compiles warning-free with the host's compilers
(release and debug builds) as it does for the Cortex-M firmware of tests/device/test_on_qemu.py."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from micro_relay.cli import main
from micro_relay.device.identity import decode, identity_of
from micro_relay.device.session import Where, compile_for
from micro_relay.examples.kws_model import build_kws_model
from support.c_harness import STRICT_FLAGS


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "kws.tflite"
    path.write_bytes(build_kws_model())
    return path


@pytest.mark.parametrize("debug", [False, True])
def test_the_server_folder(example, tmp_path, debug, capsys):
    out = tmp_path / "server"
    flags = ["--debug-guards"] if debug else []
    assert main(["device", "server", str(example), "-o", str(out), "--target", "cortex-m4", *flags]) == 0
    written = {p.name for p in out.iterdir()}
    assert {"kws.c", "kws.h", "mrs_server.c", "mrs_server.h", "mrs_model.h", "port_dwt.c"} <= written
    assert "model_server.json" in written  # what -d BUILD reads (test_build_folder.py)
    expected = identity_of(compile_for(str(example), Where(), target="cortex-m4", debug=debug))
    blob = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", (out / "mrs_model.h").read_text()))
    assert decode(blob + b"\x00")[0] == expected
    assert expected.hash in capsys.readouterr().err
    assert "mrb_profile_mark(0);" in (out / "kws.c").read_text()  # the layers are marked
    for cc in ("gcc", "clang"):
        if shutil.which(cc) is None:
            continue
        for source in ("mrs_server.c", "kws.c"):
            built = subprocess.run([cc, *STRICT_FLAGS, "-Os", "-DMRS_COUNT_UNIT=1", "-I", str(out), "-c",
                                    str(out / source), "-o", str(tmp_path / f"{source}.o")],
                                   capture_output=True, text=True)
            assert built.returncode == 0, built.stderr[-2000:]


@pytest.mark.parametrize("cpu", ["cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33"])
def test_the_cycle_counter_port_builds(cpu, tmp_path):
    """port_dwt.c, for boards (QEMU does not model the DWT, so it is built here, not run)."""
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc is not installed")
    from micro_relay.device.firmware import SERVER_DIR

    for opt in ("-O0", "-Os"):
        built = subprocess.run(["arm-none-eabi-gcc", f"-mcpu={cpu}", "-mthumb", "-ffreestanding", *STRICT_FLAGS, opt,
                                "-I", str(SERVER_DIR), "-c", str(SERVER_DIR / "port_dwt.c"), "-o",
                                str(tmp_path / "port_dwt.o")], capture_output=True, text=True)
        assert built.returncode == 0, built.stderr[-2000:]
