"""Where the CMSIS-NN library is, and what of it a build of a model compiled with `--kernels cmsis-nn` needs.

The library is never part of this repository: `--cmsis-nn DIR` or the CMSIS_NN_PATH environment variable
names a CMSIS-NN checkout (its Include/ and Source/ folders; Zephyr's copy is modules/lib/cmsis-nn). A build
compiles every Source/*/*.c with -ffunction-sections and lets the linker's --gc-sections keep what the
adapters call, with the library's own (laxer) warning flags; the adapters (crt/cmsis_nn/) are our code and
build with our flags, CMSIS-NN's headers included as system headers.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import CompileError

ENV = "CMSIS_NN_PATH"
HEADER = Path("Include") / "arm_nnfunctions.h"
# CMSIS-NN is not written for -Wall -Wextra -Wconversion; its warnings are not ours to fix.
LIBRARY_FLAGS = ("-w",)


def find_cmsis_nn(path: str | Path | None = None, where: str = "--cmsis-nn") -> Path:
    """The CMSIS-NN root: `path`, else $CMSIS_NN_PATH; a clear error when neither names a checkout."""
    if path is None:
        path = os.environ.get(ENV) or None
        where = ENV if path else where
    if path is None:
        raise CompileError(f"--kernels cmsis-nn needs the CMSIS-NN library: pass --cmsis-nn DIR or set {ENV}",
                           "--cmsis-nn")
    root = Path(path).expanduser()
    if not (root / HEADER).is_file():
        raise CompileError(f"not a CMSIS-NN checkout (no {HEADER.as_posix()}): {root}", where)
    return root.resolve()


def include_dir(root: Path) -> Path:
    return root / "Include"


def library_sources(root: Path) -> list[Path]:
    """Every C source of the library, in a stable order."""
    sources = sorted((root / "Source").glob("*/*.c"))
    if not sources:
        raise CompileError("CMSIS-NN checkout has no Source/*/*.c files", str(root))
    return sources


def _cache_key(parts: list[str], sources: list[Path]) -> str:
    digest = hashlib.sha256("\0".join(parts).encode())
    for source in sources:
        stat = source.stat()
        digest.update(f"\0{source}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def build_library(gcc: str, cflags: tuple[str, ...], root: Path, compile_all) -> Path:
    """libcmsis-nn.a for these compiler flags, built once and kept in the temporary folder under a key of the
    compiler, the flags and the sources' sizes and times. compile_all(jobs) compiles (source, object, extra
    flags) jobs with `cflags`' compiler."""
    sources = library_sources(root)
    ar = shutil.which(Path(gcc).name.replace("gcc", "ar"), path=str(Path(gcc).parent)) or shutil.which("ar")
    if ar is None:
        raise CompileError("no archiver next to the compiler (arm-none-eabi-ar)", gcc)
    key = _cache_key([gcc, *cflags, *LIBRARY_FLAGS], sources)
    cache = Path(tempfile.gettempdir()) / "micro-relay-cmsis-nn" / key
    archive = cache / "libcmsis-nn.a"
    if archive.is_file():
        return archive
    with tempfile.TemporaryDirectory(prefix="mr-cmsis-nn-") as tmp:
        objects = [Path(tmp) / f"{s.parent.name}_{s.stem}.o" for s in sources]
        compile_all([(s, o, (*LIBRARY_FLAGS, f"-I{include_dir(root)}")) for s, o in zip(sources, objects)])
        cache.mkdir(parents=True, exist_ok=True)
        staged = cache / f".libcmsis-nn-{os.getpid()}.a"  # renamed into place: readers never see half an archive
        result = subprocess.run([ar, "rcs", str(staged), *map(str, objects)], capture_output=True, text=True)
        if result.returncode != 0:
            staged.unlink(missing_ok=True)
            raise CompileError(f"archiving CMSIS-NN failed: {result.stderr.strip()[:200]}", str(archive))
        os.replace(staged, archive)
    return archive
