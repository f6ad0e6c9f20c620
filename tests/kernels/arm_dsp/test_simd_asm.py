"""The assembly in crt/include/micro_relay/simd.h, run on mps2-an386 (Cortex-M4, DSP extension) against its C.

mr_requant_q and mr_requant_s0 are one or a few instructions of inline assembly on DSP cores and C elsewhere
(mr_requant_q_c, mr_requant_s0_c); tests/kernels/arm_dsp/test_kernels.py checks the C against TFLite Micro's
MultiplyByQuantizedMultiplier (mr_mbqm) on the host, and this test the assembly against both, on the core.
MR_ASM_REQUANT_ZP, the requantization the int8 conv2d, dense and depthwise assembly loops splice in, is run
the same way, in an asm statement of its own, against mr_mbqm plus the zero point, saturated to int8, and
against mr_requant_zp_apply (C everywhere) for the channels mr_requant_zp_of covers.
"""

from __future__ import annotations

import shutil

import pytest

from micro_relay.compiler import CRT_DIR

CRT_INCLUDE = CRT_DIR / "include"
BOARD = "mps2-an386"

MAIN = r"""
#include <stdint.h>

#include "semihost.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/simd.h"

#if !MR_DSP
#error "this check needs the DSP extension"
#endif

static uint32_t state = 2463534242u;
static uint32_t next(void) { state ^= state << 13; state ^= state >> 17; state ^= state << 5; return state; }

/* MR_ASM_REQUANT_ZP as the kernels splice it: operands named as in none of them. */
static int32_t asm_requant_zp(int32_t acc, const mr_requant_zp *q)
{
    int32_t lo, hi;
    __asm__(MR_ASM_REQUANT_ZP("acc", "lo", "hi", "h0", "m", "k")
            : [acc] "+r"(acc), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [h0] "r"(q->hi), [m] "r"(q->mult), [k] "r"(q->k));
    return acc;
}

/* The halves with H0 and HI one operand, as dw_pixels_3x3 has them. */
static int32_t asm_requant_zp_halves(int32_t acc, const mr_requant_zp *q)
{
    int32_t lo, hi = q->hi;
    __asm__(MR_ASM_REQUANT_ZP_MUL("acc", "lo", "hi", "hi", "m") MR_ASM_REQUANT_ZP_SAT8("acc", "hi", "k")
            : [acc] "+r"(acc), [lo] "=&r"(lo), [hi] "+r"(hi)
            : [m] "r"(q->mult), [k] "r"(q->k));
    return acc;
}

static const int32_t edges[] = {0, 1, -1, 2, -2, 1 << 30, -(1 << 30), INT32_MAX, INT32_MIN, INT32_MIN + 1,
                                INT32_MAX - 1, 12345, -12345, 1 << 20, -(1 << 20)};
#define EDGES ((uint32_t)(sizeof edges / sizeof edges[0]))

int main(void)
{
    uint32_t bad_q = 0, bad_s0 = 0, bad_zp = 0, zp_checked = 0, i;
    for (i = 0; i < N_CASES; ++i) {
        int32_t acc = (int32_t)next(), mult = (int32_t)(next() >> 1), shift = (int32_t)(next() % 40u) - 31;
        const int32_t zp = (int32_t)(next() % 256u) - 128;
        mr_requant_dsp qq;
        mr_requant_zp qz;
        int32_t want, x;
        if (i % 4 == 1) acc = edges[next() % EDGES];
        if (i % 4 == 2) acc >>= next() % 31u;
        if (i % 8 == 3) mult = (int32_t)next() | 1; /* negative multipliers too */
        if (i % 16 == 5) mult = edges[next() % EDGES];
        if (mult == INT32_MIN) mult = 0;
        want = mr_mbqm(acc, mult, shift);
        mr_requant_q_of(mult, shift, &qq);
        bad_q += mr_requant_q(acc, &qq) != want || mr_requant_q_c(acc, &qq) != want;
        if (i % 4 == 0) shift = -(int32_t)(next() % 24u); /* the range mr_requant_zp covers, more often */
        if (mr_requant_zp_of(mult, shift, zp, &qz)) {
            const int32_t sat = MR_CLAMP(mr_mbqm(acc, mult, shift) + zp, -128, 127);
            ++zp_checked;
            bad_zp += asm_requant_zp(acc, &qz) != sat || asm_requant_zp_halves(acc, &qz) != sat ||
                      MR_CLAMP(mr_requant_zp_apply(acc, &qz), -128, 127) != sat;
        }
        /* mr_requant_s0: accumulators below 2^30 in magnitude, doubled (the flat ADD path) */
        x = (int32_t)next() >> 2;
        if (i % 2 == 0) x = ((int32_t)(i / 2 % 511) - 255) * ((int32_t)1 << 20);
        want = mr_mbqm(x, mult, 0);
        bad_s0 += mr_requant_s0(2 * x, mult) != want || mr_requant_s0_c(2 * x, mult) != want;
    }
    mrb_put_hex("mr-bench: bad q", bad_q);
    mrb_put_hex("mr-bench: bad s", bad_s0);
    mrb_put_hex("mr-bench: bad zp", bad_zp);
    mrb_put_hex("mr-bench: zp checked", zp_checked);
    mrb_puts("mr-bench: done\n");
    mrb_exit(0);
}
"""


@pytest.fixture(scope="module")
def board_tools():
    missing = [tool for tool in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"not on PATH: {', '.join(missing)}")


def test_simd_assembly_equals_its_c_on_cortex_m4(board_tools, tmp_path):
    from micro_relay.bench.build import build_runner, find_tool
    from micro_relay.bench.machines import get_machine
    from micro_relay.bench.run import run_qemu

    cases = 200_000
    machine = get_machine(BOARD)
    main = tmp_path / "simd_main.c"
    main.write_text(MAIN)
    elf = build_runner(find_tool("arm-none-eabi-gcc", "gcc-arm-none-eabi"), machine, tmp_path, tmp_path, str(main),
                       [], defines=(f"-I{CRT_INCLUDE}", f"-DN_CASES={cases}u"))
    said = dict(run_qemu(find_tool("qemu-system-arm", "qemu-system-arm"), machine, elf, tmp_path, timeout=300))
    assert (said["bad q"], said["bad s"], said["bad zp"]) == (0, 0, 0), said
    assert said["zp checked"] > cases // 4  # the covered channels were exercised
