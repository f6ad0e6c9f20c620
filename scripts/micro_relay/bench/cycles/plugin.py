"""The QEMU plugin that counts executed instructions by timing class (insn_classes.c): found, built, run.

The plugin is built against QEMU's own qemu-plugin.h, the header of the QEMU that loads it. Debian ships
qemu-system-arm with plugin support but without the header; `make qemu-plugin-header` (.ci/qemu-plugin-header)
takes it from the Debian source package of the installed QEMU into the cache below. The header is looked for in
MICRO_RELAY_QEMU_PLUGIN_H (the file or its folder), the system include folders, then that cache. The built
plugin is cached by the hash of its source, the header and the QEMU version, beside the header.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ...errors import CompileError

SOURCE = Path(__file__).resolve().parent / "insn_classes.c"
SYSTEM_HEADERS = (Path("/usr/include/qemu-plugin.h"), Path("/usr/include/qemu/qemu-plugin.h"),
                  Path("/usr/local/include/qemu-plugin.h"), Path("/usr/local/include/qemu/qemu-plugin.h"))
MARKERS = ("mrb_region_begin", "mrb_region_end")  # bench/runner/timer.c


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "micro-relay" / "qemu-plugin"


def qemu_version_line(qemu: str) -> str:
    done = subprocess.run([qemu, "--version"], capture_output=True, text=True)
    return done.stdout.splitlines()[0].strip() if done.stdout else "unknown"


def header_cache(qemu: str, version: str | None = None) -> Path:
    """Where `make qemu-plugin-header` puts the header for this QEMU (`version`: its --version line, if known)."""
    version = version or qemu_version_line(qemu)
    return cache_dir() / hashlib.sha256(version.encode()).hexdigest()[:12] / "qemu-plugin.h"


def find_header(qemu: str, version: str) -> Path | None:
    given = os.environ.get("MICRO_RELAY_QEMU_PLUGIN_H")
    if given:
        path = Path(given)
        return path / "qemu-plugin.h" if path.is_dir() else path
    for path in (*SYSTEM_HEADERS, header_cache(qemu, version)):
        if path.is_file():
            return path
    return None


@dataclass(frozen=True)
class Plugin:
    library: Path

    def arguments(self, elf: Path, out: Path) -> list[str]:
        """QEMU's -plugin option for a runner ELF: the region markers' addresses, the counts' file."""
        begin, end = marker_addresses(elf)
        return ["-plugin", f"{self.library},begin={begin:#x},end={end:#x},out={out}"]


def cycle_plugin(qemu: str) -> Plugin | str:
    """The built plugin, or why there is none (a sentence for the bench's JSON)."""
    version = qemu_version_line(qemu)
    header = find_header(qemu, version)
    if header is None or not header.is_file():
        return "no qemu-plugin.h for this QEMU (make qemu-plugin-header, or MICRO_RELAY_QEMU_PLUGIN_H)"
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return "no host C compiler (cc) to build the QEMU plugin"
    key = hashlib.sha256(SOURCE.read_bytes() + header.read_bytes() + version.encode())
    library = cache_dir() / "plugins" / f"insn_classes-{key.hexdigest()[:16]}.so"
    if not library.is_file():
        library.parent.mkdir(parents=True, exist_ok=True)
        partial = library.with_suffix(f".{os.getpid()}.tmp")
        done = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{header.parent}",
                               "-o", str(partial), str(SOURCE)], capture_output=True, text=True)
        if done.returncode != 0:
            partial.unlink(missing_ok=True)
            said = [line for line in done.stderr.splitlines() if "error" in line] or ["exit status nonzero"]
            return f"the QEMU plugin did not build: {said[0]}"
        partial.replace(library)
    return Plugin(library)


def marker_addresses(elf: Path) -> tuple[int, int]:
    """The region markers' code addresses (Thumb bit cleared) from the ELF's symbol table."""
    from elftools.elf.elffile import ELFFile

    with open(elf, "rb") as handle:
        symbols = ELFFile(handle).get_section_by_name(".symtab")
        found = {s.name: s["st_value"] & ~1 for s in symbols.iter_symbols() if s.name in MARKERS} if symbols else {}
    if set(found) != set(MARKERS):
        raise CompileError("the runner has no region markers (mrb_region_begin/_end)", str(elf))
    return found[MARKERS[0]], found[MARKERS[1]]


def read_regions(path: Path) -> list[dict[str, int]]:
    """The plugin's file: one dict of class counts per closed region, in the order they closed."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        raise CompileError("the QEMU plugin wrote no counts", str(path)) from None
    names = next((line.split()[1:] for line in lines if line.startswith("classes ")), None)
    if names is None:
        raise CompileError("the QEMU plugin's counts are cut short", str(path))
    return [dict(zip(names, map(int, line.split()[1:]))) for line in lines if line.startswith("region ")]
