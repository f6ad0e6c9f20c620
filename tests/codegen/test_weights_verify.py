"""Weight integrity (NAME_verify) on the host: the runtime's CRC is zlib's, the CRC the compiler writes is the
zlib CRC of the arrays as they sit in the linked program (read back from the ELF with pyelftools, in the order
NAME.c declares them), NAME_verify() passes on the program as built and returns MR_ERR_WEIGHTS (7) once one byte
of one weight array is flipped in the ELF file.
"""

from __future__ import annotations

import json
import re
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from micro_relay.compiler import compile_graph, prepare_graph, write_output
from micro_relay.examples.kws_model import build_kws_model
from support.c_harness import STRICT_FLAGS
from support.tflite_models import conv2d_model

CRT = Path(__file__).resolve().parents[2] / "crt"

CRC_MAIN = r"""
#include <stdio.h>
#include "micro_relay/crc32.h"

/* Reads "<length>\n<bytes>" records from stdin; for each prints the CRC of the bytes in one call and in two
   calls (split at the middle), in hex. */
int main(void)
{
    static unsigned char data[1 << 16];
    unsigned long n;
    while (scanf("%lu", &n) == 1) {
        getchar();
        if (n > sizeof data || fread(data, 1, n, stdin) != n) {
            return 2;
        }
        printf("%08lx %08lx\n", (unsigned long)mr_crc32(0u, data, n),
               (unsigned long)mr_crc32(mr_crc32(0u, data, n / 2), data + n / 2, n - n / 2));
    }
    return 0;
}
"""

VERIFY_MAIN = r"""
#include <stdio.h>
#include "{name}.h"

int main(void)
{{
    printf("%d\n", {name}_verify());
    return 0;
}}
"""

# the constant arrays NAME_[wbqk]<n> (codegen/constants.py); an array of parameter structs (NAME_p<n>: a chain's
# layer table, holding pointers) is a parameter, not a constant the CRC covers
DECLARED = re.compile(r"^static const \w+ (\w+_[wbqk]\d+)\[\d+\]", re.MULTILINE)


def test_the_runtime_crc_is_zlibs(tmp_path):
    exe = tmp_path / "crc"
    (tmp_path / "main.c").write_text(CRC_MAIN)
    subprocess.run(["gcc", *STRICT_FLAGS, "-O2", "-I", str(CRT / "include"), str(tmp_path / "main.c"),
                    str(CRT / "src" / "mr_crc32.c"), "-o", str(exe)], check=True, capture_output=True)
    rng = np.random.default_rng(5)
    records = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in (0, 1, 2, 3, 7, 64, 1000, 65536)]
    records += [b"123456789", b"\x00" * 100, b"\xff" * 33]
    stdin = b"".join(b"%d\n" % len(r) + r for r in records)
    lines = subprocess.run([str(exe)], input=stdin, capture_output=True, check=True).stdout.decode().split("\n")
    assert [line.split() for line in lines if line] == [[f"{zlib.crc32(r):08x}"] * 2 for r in records]
    assert zlib.crc32(b"123456789") == 0xCBF43926  # the check value of CRC-32/ISO-HDLC


def _build(model_path: Path, name: str, out: Path) -> tuple[Path, dict]:
    model = compile_graph(prepare_graph(model_path), name, model_path.name)
    write_output(model, out)
    (out / "verify_main.c").write_text(VERIFY_MAIN.format(name=name))
    exe = out / "verify"
    sources = sorted(str(p) for p in out.glob("*.c"))
    built = subprocess.run(["gcc", *STRICT_FLAGS, "-O1", "-I", str(out), *sources, "-o", str(exe), "-lm"],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    return exe, json.loads((out / f"{name}.plan.json").read_text())


def _symbol_file_offsets(exe: Path, prefix: str) -> dict[str, tuple[int, int]]:
    """{symbol: (file offset, size)} of the program's data objects whose names start with `prefix`."""
    with exe.open("rb") as f:
        elf = ELFFile(f)
        found = {}
        for sym in elf.get_section_by_name(".symtab").iter_symbols():
            if sym.name.startswith(prefix) and sym["st_info"]["type"] == "STT_OBJECT" and sym["st_size"]:
                section = elf.get_section(sym["st_shndx"])
                offset = section["sh_offset"] + sym["st_value"] - section["sh_addr"]
                found[sym.name[len(prefix):]] = (offset, sym["st_size"])
        return found


def _run(exe: Path) -> int:
    return int(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout)


@pytest.mark.parametrize("kind", ["kws_int8", "conv_float32"])
def test_verify_passes_as_built_and_fails_on_a_flipped_weight_byte(tmp_path, kind):
    model_path = tmp_path / f"{kind}.tflite"
    model_path.write_bytes(build_kws_model() if kind == "kws_int8" else conv2d_model(dtype="float32"))
    name = kind
    exe, plan = _build(model_path, name, tmp_path / "out")
    source = (tmp_path / "out" / f"{name}.c").read_text()
    arrays = DECLARED.findall(source)
    assert arrays, "no constant array declared"

    # The CRC of the arrays as linked (static objects keep their NAME.c identifiers in .symtab, gcc may give
    # them a ".<n>" suffix), in declaration order, is the one the header and the plan name.
    symbols = {re.sub(r"\.\d+$", "", s): v for s, v in _symbol_file_offsets(exe, "").items()}
    image = exe.read_bytes()
    crc = 0
    for ident in arrays:
        offset, size = symbols[ident]
        crc = zlib.crc32(image[offset:offset + size], crc)
    assert plan["weights"]["crc32"] == f"0x{crc:08x}"
    assert f"#define {name.upper()}_WEIGHTS_CRC32 0x{crc:08x}u" in (tmp_path / "out" / f"{name}.h").read_text()

    assert _run(exe) == 0
    weight = next(a for a in arrays if re.fullmatch(rf"{name}_w\d+", a))
    offset, size = symbols[weight]
    patched = bytearray(image)
    patched[offset + size // 2] ^= 0x10
    exe.write_bytes(bytes(patched))
    assert _run(exe) == 7  # MR_ERR_WEIGHTS
    exe.write_bytes(image)
    assert _run(exe) == 0


def test_the_crc_follows_the_weights(tmp_path):
    """The same model compiled twice has the same CRC; a model with other weights (another seed) another one."""
    crcs = []
    for seed in (1, 1, 2):
        path = tmp_path / f"m{seed}.tflite"
        path.write_bytes(conv2d_model(dtype="float32", seed=seed))
        report = json.loads(compile_graph(prepare_graph(path), "m", path.name).files["m.plan.json"])
        crcs.append(report["weights"]["crc32"])
    assert crcs[0] == crcs[1] != crcs[2]
