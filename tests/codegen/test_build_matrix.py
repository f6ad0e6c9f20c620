"""Every runtime source and a generated model build -Werror clean with the project's warning flags at -O0, -Og,
-O2 and -Os, with GCC and with clang, for the host and for Cortex-M0+, M3, M4, M7 and M33 (compile only for the
cross targets; clang cross-compiles with --target=arm-none-eabi and the arm-none-eabi newlib headers).

One compiler invocation per configuration compiles all the files; configurations run in parallel. A Zephyr
application built with CONFIG_NO_OPTIMIZATIONS (-O0) or CONFIG_DEBUG_OPTIMIZATIONS (-Og) is one of these, and so
is a GCC build that keeps the frame pointer at -O2 (it defines MR_KEEP_FRAME_POINTER: crt/include/micro_relay/simd.h
says why)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from support.c_harness import STRICT_FLAGS
from micro_relay.compiler import CRT_DIR, compile_graph, prepare_graph, write_output
from micro_relay.examples.kws_model import build_kws_model

CORES = ("host", "cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33")
LEVELS = ("-O0", "-Og", "-O2", "-Os")
# Frame-pointer builds, beside the matrix: they need the macro the preprocessor cannot infer.
FRAME_POINTER = ("-O2", "-fno-omit-frame-pointer", "-DMR_KEEP_FRAME_POINTER")


def _newlib_include() -> str | None:
    """The arm-none-eabi C library headers (from arm-none-eabi-gcc's own search list), for clang's cross builds."""
    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc is None:
        return None
    listing = subprocess.run([gcc, "-xc", "-E", "-Wp,-v", os.devnull], capture_output=True, text=True).stderr
    for line in listing.splitlines():
        folder = Path(line.strip())
        if line.startswith(" ") and (folder / "stdio.h").is_file() and (folder / "newlib.h").is_file():
            return str(folder.resolve())
    return None


def _compilers() -> dict[str, tuple[dict[str, list[str]] | None, str]]:
    """compiler -> ({core: command prefix} or None, why it is skipped)."""
    gcc, arm_gcc, clang = shutil.which("gcc"), shutil.which("arm-none-eabi-gcc"), shutil.which("clang")
    newlib = _newlib_include()
    compilers = {}
    if gcc is None or arm_gcc is None:
        compilers["gcc"] = (None, "gcc and arm-none-eabi-gcc are needed (apt-get install gcc gcc-arm-none-eabi)")
    else:
        compilers["gcc"] = ({core: [gcc] if core == "host" else [arm_gcc, f"-mcpu={core}", "-mthumb"]
                             for core in CORES}, "")
    if clang is None or newlib is None:
        compilers["clang"] = (None, "clang and the arm-none-eabi newlib headers are needed "
                                    "(apt-get install clang gcc-arm-none-eabi libnewlib-arm-none-eabi)")
    else:
        compilers["clang"] = ({core: [clang] if core == "host" else
                               [clang, "--target=arm-none-eabi", f"-mcpu={core}", "-mthumb", "-isystem", newlib]
                               for core in CORES}, "")
    return compilers


COMPILERS = _compilers()


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    """The kws example model (conv, depthwise, pointwise, pooling, dense, softmax) compiled to C."""
    folder = tmp_path_factory.mktemp("matrix")
    model = folder / "kws.tflite"
    model.write_bytes(build_kws_model())
    out = folder / "out"
    write_output(compile_graph(prepare_graph(model), "kws", model.name), out)
    return out


def _build(prefix: list[str], flags: tuple[str, ...], sources: list[Path], include: list[Path]) -> str | None:
    """None when every source compiles, else the compiler's first complaints."""
    with tempfile.TemporaryDirectory(prefix="mr-matrix-") as objects:
        command = [*prefix, *flags, *STRICT_FLAGS, *(f"-I{i}" for i in include), "-c", *map(str, sources)]
        result = subprocess.run(command, cwd=objects, capture_output=True, text=True, timeout=600)
    if result.returncode == 0:
        return None
    return f"{' '.join(prefix[:3])} {' '.join(flags)}:\n{result.stderr[-1500:]}"


@pytest.mark.parametrize("compiler", sorted(COMPILERS))
def test_runtime_and_generated_model_build_at_every_level(compiler, model_dir):
    prefixes, why = COMPILERS[compiler]
    if prefixes is None:
        pytest.skip(why)
    sources = [*sorted((CRT_DIR / "src").glob("*.c")), model_dir / "kws.c"]
    include = [CRT_DIR / "include", model_dir]
    configs = [(prefixes[core], (level,)) for core in CORES for level in LEVELS]
    if compiler == "gcc":
        configs += [(prefixes[core], FRAME_POINTER) for core in ("cortex-m4", "cortex-m7", "cortex-m33")]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        failures = [f for f in pool.map(lambda c: _build(c[0], c[1], sources, include), configs) if f]
    assert not failures, f"{len(failures)} of {len(configs)} configurations fail:\n" + "\n".join(failures)
