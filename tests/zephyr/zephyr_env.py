"""The Zephyr workspace these tests build in, and how to build and run an application there.

The workspace is the one ZEPHYR_BASE names (a west workspace with Zephyr 4.1 and the cmsis and picolibc
modules: see docs/zephyr.md). Without it every test here skips and says why. Boards:

- native_sim: host gcc (ZEPHYR_TOOLCHAIN_VARIANT=host unless set), runs as a Linux program;
- qemu_cortex_m3 and mps2/an386: arm-none-eabi-gcc (gnuarmemb, unless ZEPHYR_TOOLCHAIN_VARIANT names
  another toolchain), run in qemu-system-arm.

MICRO_RELAY_ZEPHYR_BOARDS (comma-separated) picks the boards; default: native_sim,qemu_cortex_m3.
This repository is added with -DZEPHYR_EXTRA_MODULES unless the workspace already lists it.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BOARDS = "native_sim,qemu_cortex_m3"
# mps2/an385 (Cortex-M3) and mps2/an521/cpu0 (Cortex-M33, TrustZone-M, secure state): MPUs Zephyr drives and
# QEMU emulates (tests/zephyr/userspace)
ARM_BOARDS = {"qemu_cortex_m3", "mps2/an386", "mps2/an385", "mps2/an521/cpu0"}
# Boards QEMU emulates whose Zephyr 4.1 board files offer only Arm's FVP: run them in QEMU directly.
# (Twister can only build these.)
QEMU_MACHINES = {"mps2/an386": ("mps2-an386", "cortex-m4")}


def zephyr_base() -> Path:
    value = os.environ.get("ZEPHYR_BASE")
    if not value:
        pytest.skip("ZEPHYR_BASE is not set: these tests need a Zephyr workspace (see docs/zephyr.md)")
    base = Path(value)
    if not (base / "cmake" / "modules" / "zephyr_default.cmake").is_file():
        pytest.skip(f"ZEPHYR_BASE={base} is not a Zephyr tree")
    for tool in ("west", "cmake", "ninja", "dtc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (needed to build Zephyr)")
    return base


def boards() -> list[str]:
    return [b.strip() for b in os.environ.get("MICRO_RELAY_ZEPHYR_BOARDS", DEFAULT_BOARDS).split(",") if b.strip()]


def board_env(board: str) -> dict[str, str]:
    """Environment for building for `board`; skips when its toolchain or emulator is missing."""
    base = zephyr_base()
    env = dict(os.environ, ZEPHYR_BASE=str(base))
    if board.startswith("native_sim"):
        if shutil.which("gcc") is None:
            pytest.skip("gcc is not installed (native_sim)")
        env.setdefault("ZEPHYR_TOOLCHAIN_VARIANT", "host")
        if env["ZEPHYR_TOOLCHAIN_VARIANT"] in ("gnuarmemb", "cross-compile"):
            env["ZEPHYR_TOOLCHAIN_VARIANT"] = "host"
        return env
    if board in ARM_BOARDS:
        if board == "mps2/an386" and not (base / "boards" / "arm" / "mps2" / "mps2_an386.yaml").is_file():
            pytest.skip("this Zephyr has no mps2/an386 board")
        if shutil.which("qemu-system-arm") is None:
            pytest.skip("qemu-system-arm is not installed")
        return _arm_gcc_env(env)
    if board.split("/")[0] in HARDWARE_BOARDS or board in BUILT_ONLY:  # never run here: no emulator needed
        return _arm_gcc_env(env)
    pytest.skip(f"no toolchain setup known for board {board}")


# Real boards of the build-only matrix (tests/zephyr/board_matrix) and the HAL module each needs.
HARDWARE_BOARDS = {"stm32f4_disco": "hal_stm32", "nucleo_f746zg": "hal_stm32", "nucleo_l552ze_q": "hal_stm32",
                   "nucleo_g071rb": "hal_stm32", "nrf52840dk": "hal_nordic", "nrf5340dk": "hal_nordic",
                   "frdm_kl25z": "hal_nxp"}

# Boards QEMU emulates whose images here are built, never run: a TrustZone-M non-secure image needs a secure
# image beside it, which these tests do not build (tests/zephyr/userspace, scenario nonsecure).
BUILT_ONLY = {"mps2/an521/cpu0/ns"}


def _arm_gcc_env(env: dict) -> dict:
    if env.get("ZEPHYR_TOOLCHAIN_VARIANT", "host") == "host":
        gcc = shutil.which("arm-none-eabi-gcc")
        if gcc is None:
            pytest.skip("arm-none-eabi-gcc is not installed and ZEPHYR_TOOLCHAIN_VARIANT names no toolchain")
        env["ZEPHYR_TOOLCHAIN_VARIANT"] = "gnuarmemb"
        env.setdefault("GNUARMEMB_TOOLCHAIN_PATH", str(Path(gcc).resolve().parents[1]))
    return env


def _module_args(env) -> list[str]:
    """-DZEPHYR_EXTRA_MODULES=<this repository>, unless the workspace already has it as a project."""
    listed = subprocess.run(["west", "list", "-f", "{abspath}"], cwd=env["ZEPHYR_BASE"], env=env,
                            capture_output=True, text=True)
    paths = {Path(p).resolve() for p in listed.stdout.split()} if listed.returncode == 0 else set()
    return [] if REPO in paths else [f"-DZEPHYR_EXTRA_MODULES={REPO}"]


@dataclass
class Build:
    app: Path
    board: str
    build_dir: Path
    env: dict
    log: str = ""
    returncode: int = -1
    seconds: float = 0.0

    def west(self, *args: str, pristine: bool = False, cmake_args: tuple[str, ...] = (), timeout: int = 1800) -> "Build":
        command = ["west", "build", "-b", self.board, "-d", str(self.build_dir), *args]
        if pristine:
            command += ["-p", "always"]
        command.append(str(self.app))
        configured = (self.build_dir / "CMakeCache.txt").is_file() and not pristine
        # Any argument after `--` makes west re-run CMake; a configured build keeps its cached ones.
        extra = [*([] if configured else _module_args(self.env)), *cmake_args]
        if extra:
            command += ["--", *extra]
        start = time.monotonic()
        # west build needs a west workspace: run it from Zephyr's folder.
        done = subprocess.run(command, cwd=self.env["ZEPHYR_BASE"], env=self.env, capture_output=True, text=True,
                              timeout=timeout)
        self.seconds = time.monotonic() - start
        self.log = done.stdout + done.stderr
        self.returncode = done.returncode
        return self

    def build(self, **kwargs) -> "Build":
        self.west(**kwargs)
        assert self.returncode == 0, f"west build failed for {self.app.name} on {self.board}:\n{self.log[-6000:]}"
        return self

    def run(self, done: str, timeout: float = 120.0) -> str:
        """Run the image (native_sim executable, or QEMU through `west build -t run`) until a line
        matches `done` or the time is up; return what it printed."""
        if self.board.startswith("native_sim"):
            command = [str(self.build_dir / "zephyr" / "zephyr.exe")]
        elif self.board in QEMU_MACHINES:
            from micro_relay.emulate.qemu import qemu_command  # what `west micro-relay qemu` runs

            command = qemu_command(self.build_dir)
        else:
            command = ["west", "build", "-d", str(self.build_dir), "-t", "run"]
        process = subprocess.Popen(command, cwd=self.env["ZEPHYR_BASE"], env=self.env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        pattern = re.compile(done)
        data = b""
        try:
            fd = process.stdout.fileno()
            while time.monotonic() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.2)
                if ready:
                    chunk = os.read(fd, 65536)
                    if not chunk:  # the program ended
                        break
                    data += chunk
                    complete = data[:data.rfind(b"\n") + 1]  # whole lines only
                    if pattern.search(complete.decode("utf-8", "replace")):
                        break
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)  # the group this call started: QEMU under ninja
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
            process.stdout.close()
        output = data.decode("utf-8", "replace")
        assert pattern.search(output), f"no line matching {done!r} within {timeout} s; the image printed:\n{output}"
        return output


def new_build(app: Path, board: str, build_dir: Path) -> Build:
    return Build(app, board, build_dir, board_env(board))


def ordered_matches(output: str, regexes: list[str]) -> None:
    """Each regex matches a line, in order (Twister's console harness, multi_line, ordered)."""
    lines = output.splitlines()
    position = 0
    for regex in regexes:
        pattern = re.compile(regex)
        for index in range(position, len(lines)):
            if pattern.search(lines[index]):
                position = index + 1
                break
        else:
            raise AssertionError(f"no line after line {position} matches {regex!r}:\n{output}")
