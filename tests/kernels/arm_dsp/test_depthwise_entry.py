"""The depthwise strip kernel's entry point is picked at compile time (kernels/arm_dsp/depthwise_conv2d.py
_strip_entry): `_strip3x3_fast` leaves out the raw-sums path, so the Python condition for "the 3x3 assembly
requantizes this channel itself" must be exactly mr_requant_zp_of's (crt/include/micro_relay/simd.h). This builds
that C function on the host and compares it with the Python predicate over multipliers and shifts around both ends of the range.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from micro_relay.compiler import CRT_DIR
from micro_relay.kernels.arm_dsp.depthwise_conv2d import _asm_requantizes

PROGRAM = r"""
#include <stdio.h>
#include "micro_relay/simd.h"

int main(void)
{
    static const int32_t mults[] = {-2147483647 - 1, -1073741824, -1, 0, 1, 1073741824, 1518500250, 2147483647};
    int32_t m, shift;
    for (m = 0; m < (int32_t)(sizeof mults / sizeof mults[0]); ++m) {
        for (shift = -31; shift <= 31; ++shift) {
            mr_requant_zp q;
            printf("%ld %ld %d\n", (long)mults[m], (long)shift, mr_requant_zp_of(mults[m], shift, -7, &q));
        }
    }
    return 0;
}
"""


def test_entry_condition_is_mr_requant_zp_of(tmp_path: Path):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no host C compiler on PATH")
    source = tmp_path / "check.c"
    source.write_text(PROGRAM)
    exe = tmp_path / "check"
    subprocess.run([cc, "-std=c99", "-Wall", "-Werror", "-I", str(CRT_DIR / "include"), str(source), "-o", str(exe)],
                   check=True)
    rows = [line.split() for line in subprocess.run([str(exe)], check=True, capture_output=True,
                                                     text=True).stdout.splitlines()]
    assert len(rows) == 8 * 63
    for mult, shift, ok in rows:
        assert _asm_requantizes({"mult": [int(mult)], "shift": [int(shift)]}) == [ok == "1"], (mult, shift)
