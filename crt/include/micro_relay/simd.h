/*
 * Helpers of the Cortex-M DSP-extension paths (Cortex-M4/M7/M33, selected by __ARM_FEATURE_DSP) of the int8
 * conv2d, depthwise_conv2d, dense and add kernels. Each kernel file keeps its portable C path for cores without
 * the extension (M0/M3) and for hosts; both are bit-exact with TFLite Micro.
 *
 * The DSP paths multiply in pairs: SXTB16 sign-extends bytes 0 and 2 of a word into two 16-bit lanes (with a
 * rotation by 8, bytes 1 and 3), and SMLAD adds the two lane products to an int32. Extending both operands
 * of a 4-byte dot product the same way (even bytes, odd bytes) gives it in two SMLADs:
 *     dot(x[0..3], w[0..3]) = smlad(sxtb16(x), sxtb16(w)) + smlad(sxtb16(x ror 8), sxtb16(w ror 8)).
 * SXTAB16 adds a packed pair while extending, which subtracts an input zero point for free. Every sum is
 * int32 arithmetic that wraps like TFLite Micro's (SMLAD's Q flag is never read), and integer sums do not
 * depend on their order, so the results are exact.
 *
 * Words are read with memcpy into a uint32_t (one LDR on these cores, which allow unaligned loads); int8_t
 * pointers are never cast to wider types.
 */
#ifndef MICRO_RELAY_SIMD_H
#define MICRO_RELAY_SIMD_H

#include <string.h>

#include "crt.h"
#include "fixedpoint.h"

/* MR_FORCE_PORTABLE (a -D flag): every kernel takes its portable C path, on any core (MR_DSP and MR_DSP_ASM 0). */
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && !defined(MR_FORCE_PORTABLE)
#include <arm_acle.h>
#define MR_DSP 1
#else
#define MR_DSP 0
#endif

/*
 * MR_DSP_ASM: the int8 conv2d and dense DSP paths, whose inner loops are inline assembly that keeps 14 values in
 * registers, every core register but sp and pc. That needs r7, which Thumb code keeps for the frame pointer at
 * -O0, with -fno-omit-frame-pointer, and with clang (which keeps it on Arm at every level). Builds that keep a
 * frame pointer (for GCC at -O1 and above the preprocessor cannot tell: define MR_KEEP_FRAME_POINTER, as Zephyr's
 * CONFIG_FRAME_POINTER builds should) and clang builds take these two kernels' portable loops, bit-exact with
 * TFLite Micro all the same; every other DSP path (depthwise, add, pooling) needs at most 13 registers and stays.
 */
#if MR_DSP && defined(__OPTIMIZE__) && !defined(__clang__) && !defined(MR_KEEP_FRAME_POINTER)
#define MR_DSP_ASM 1
#else
#define MR_DSP_ASM 0
#endif

/* Four int8 values as one little-endian word, from any alignment. */
static inline uint32_t mr_load_s8x4(const int8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/*
 * TFLite Micro's MultiplyByQuantizedMultiplier(acc, mult, shift) from the constants of mr_conv_requant (see
 * conv2d.h), computed as floor((p + nudge - 2^31 [p < 0]) / 2^32) >> right with p = (acc << left) * mult.
 * The sign of p is taken from acc' ^ mult before the product, so the 64-bit start value is ready when the
 * multiply-accumulate (one SMLAL) runs: when acc' or mult is 0, p = 0 and the wrong correction changes
 * nothing, because for p in [-2^30, 0) both numerators lie in [0, 2^(31+r)) (conv2d.h). For r = 0
 * (right = -1) it is SRDHM alone, floor((p + 2^30) / 2^31). Same result as mr_conv_requantize for every
 * input, which tests/kernels/arm_dsp/test_kernels.py checks on the host.
 */
static inline int32_t mr_requant_fast(int32_t acc, int32_t mult, int32_t left, int32_t right, int64_t nudge)
{
    const int32_t a = (int32_t)((uint32_t)acc << left);
    int64_t z;
    if (right < 0) {
        z = ((int64_t)1 << 30) + (int64_t)a * mult;
        return (int32_t)(z >> 31);
    }
    z = nudge - (int64_t)((uint32_t)(a ^ mult) >> 31 << 31) + (int64_t)a * mult;
    return (int32_t)(z >> 32) >> right;
}

/*
 * The same result from the raw (mult, shift) pair, for loops that cannot keep per-channel constants: with
 * r = -shift >= 1 and K = 2^(r-1) - [p < 0], the start value 2^30 + K 2^31 is the nudge minus the correction.
 */
static inline int32_t mr_requant_raw(int32_t acc, int32_t mult, int32_t shift)
{
    int32_t k;
    if (shift >= 0) {
        const int32_t a = (int32_t)((uint32_t)acc << shift);
        return (int32_t)((((int64_t)1 << 30) + (int64_t)a * mult) >> 31);
    }
    k = (int32_t)(1u << (uint32_t)~shift) - (int32_t)((uint32_t)(acc ^ mult) >> 31);
    return (int32_t)(((((int64_t)k << 31) + ((int64_t)1 << 30)) + (int64_t)acc * mult) >> 32) >> ~shift;
}

/* mr_requant_raw, or for a node that rounds once (the params' single_round) mr_requant_single: the DSP kernels'
 * long way, which every channel of such a node takes (their assembly requantizes as TFLite Micro does). */
static inline int32_t mr_requant_node(int32_t acc, int32_t mult, int32_t shift, int32_t single)
{
    return single ? mr_requant_single(acc, mult, shift) : mr_requant_raw(acc, mult, shift);
}

/* For helpers on the hot path that GCC -Os would otherwise call out of line. */
#if defined(__GNUC__) || defined(__clang__)
#define MR_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define MR_ALWAYS_INLINE inline
#endif

/*
 * Per-channel constants of mr_requant_q, made once per block of channels (mr_requant_q_of): the 64-bit start
 * value nudge = 2^30 + 2^(30+r) as two words (r = -shift >= 1), the multiplier and the shift.
 */
typedef struct {
    uint32_t lo;
    int32_t hi, mult, shift;
} mr_requant_dsp;

static inline void mr_requant_q_of(int32_t mult, int32_t shift, mr_requant_dsp *q)
{
    const int32_t r = shift < 0 ? -shift : 1; /* lo and hi are unused when shift >= 0 */
    q->lo = (1u << 30) + (r == 1 ? 1u << 31 : 0u);
    q->hi = r >= 2 ? (int32_t)1 << (r - 2) : 0;
    q->mult = mult;
    q->shift = shift;
}

/*
 * mr_requant_fast from those constants: for shift < 0 the start value nudge - 2^31 [acc * mult < 0] is
 * nudge plus the 64-bit value of (t >> 31) * 2^31 with t = acc ^ mult (low word t & 2^31, high word t >> 31,
 * added with carry), then one SMLAL and the shift of the high word by r - 1 = ~shift. Same value as
 * mr_mbqm (tests/kernels/arm_dsp/test_kernels.py checks it on the host). mr_requant_q_c is the definition in C, which
 * the other cores run; on DSP cores mr_requant_q does shift < 0 in assembly (GCC -Os makes one instruction more
 * of the C), which tests/kernels/test_simd_asm.py checks against mr_requant_q_c and mr_mbqm on a Cortex-M4.
 */
static MR_ALWAYS_INLINE int32_t mr_requant_q_c(int32_t acc, const mr_requant_dsp *q)
{
    if (q->shift < 0) {
        const int32_t t = acc ^ q->mult;
        const int64_t start = (int64_t)(((uint64_t)(uint32_t)q->hi << 32) | q->lo) -
                              (int64_t)((uint32_t)t >> 31) * ((int64_t)1 << 31);
        return (int32_t)((start + (int64_t)acc * q->mult) >> 32) >> ~q->shift;
    }
    return (int32_t)((((int64_t)1 << 30) + (int64_t)(int32_t)((uint32_t)acc << q->shift) * q->mult) >> 31);
}

static MR_ALWAYS_INLINE int32_t mr_requant_q(int32_t acc, const mr_requant_dsp *q)
{
#if MR_DSP
    if (q->shift < 0) {
        const int32_t t = acc ^ q->mult;
        uint32_t lo;
        int32_t hi;
        __asm__("and %[lo], %[t], #0x80000000\n\t"
                "adds %[lo], %[lo], %[nlo]\n\t"
                "adc %[hi], %[nhi], %[t], asr #31\n\t"
                "smlal %[lo], %[hi], %[a], %[m]"
                : [lo] "=&r"(lo), [hi] "=&r"(hi)
                : [t] "r"(t), [nlo] "r"(q->lo), [nhi] "r"(q->hi), [a] "r"(acc), [m] "r"(q->mult)
                : "cc");
        return hi >> ~q->shift;
    }
#endif
    return mr_requant_q_c(acc, q);
}

/*
 * mr_mbqm(acc, mult, shift) + zp in five data instructions, for the channels most layers have: mult >= 0 and
 * shift in [-21, -2], i.e. r = -shift >= 2 and k = r - 1 <= 20 (mr_requant_zp_of says whether a channel
 * qualifies). With mult >= 0 the sign of acc * mult is the sign of acc (when either is 0 the product is 0 and
 * the correction changes nothing, see mr_requant_fast), so the 64-bit start value nudge - 2^31 [acc < 0] of
 * mr_requant_q has low word 2^30 | (acc & 2^31) and high word 2^(r-2) + (acc >> 31). Adding zp * 2^(32+k)
 * to it adds zp to the result, (hi + zp 2^k) >> k = (hi >> k) + zp, and cannot overflow: |hi| <= 2^30 + 2^19 + 1
 * and |zp 2^k| <= 2^27. tests/kernels/arm_dsp/test_kernels.py checks it against mr_mbqm on the host.
 */
typedef struct {
    int32_t hi;   /* 2^(k-1) + zp * 2^k */
    int32_t mult;
    int32_t k;    /* -shift - 1 */
} mr_requant_zp;
/* The offsets the assembly that requantizes with these constants reads them at (mr_conv2d_dsp.c, mr_dense.c,
 * mr_depthwise_conv2d.c: LDRD of hi and mult, then k). */
MR_CHECK_OFFSET(mr_requant_zp, hi, hi, 0);
MR_CHECK_OFFSET(mr_requant_zp, mult, mult, 4);
MR_CHECK_OFFSET(mr_requant_zp, k, k, 8);
MR_STATIC_ASSERT(mr_requant_zp_size, sizeof(mr_requant_zp) == 12);

static inline int mr_requant_zp_of(int32_t mult, int32_t shift, int32_t zp, mr_requant_zp *q)
{
    const int32_t k = -shift - 1;
    const int ok = mult >= 0 && k >= 1 && k <= 20;
    q->hi = ok ? (int32_t)((1u << (uint32_t)(k - 1)) + ((uint32_t)zp << (uint32_t)k)) : 0;
    q->mult = mult;
    q->k = k;
    return ok;
}

/* In C on every core: GCC -Os makes the same four instructions as MR_ASM_REQUANT_ZP_MUL of it (AND, SUB of
 * acc >> 31 unsigned for the ADD of it signed, ORR, SMLAL), then the ASR. */
static MR_ALWAYS_INLINE int32_t mr_requant_zp_apply(int32_t acc, const mr_requant_zp *q)
{
    const int64_t start = (int64_t)(q->hi + (acc < 0 ? -1 : 0)) * ((int64_t)1 << 32) +
                          (int64_t)(0x40000000u | ((uint32_t)acc & 0x80000000u));
    return (int32_t)((start + (int64_t)acc * q->mult) >> 32) >> q->k;
}

/*
 * mr_requant_zp_apply and the int8 saturation as inline assembly text, for the DSP kernels' assembly loops
 * (tile_pairs, tile16, pw8_tile, dense_blocks, dw_pixels_3x3) to splice into their asm strings: the one copy of
 * the sequence. Each argument is the name of an operand of the asm statement it is spliced into, as a string
 * literal ("a00" for %[a00]); the operands are registers:
 *   A   the accumulator, read; SSAT writes the int8 result (sign-extended, the output zero point included) to it
 *   LO  scratch: the 64-bit start value's low word (written)
 *   HI  scratch: its high word, then the result before SSAT (written; may be the same operand as H0)
 *   H0  mr_requant_zp's hi (read), M its mult (read), K its k (read; ASR by a register reads its low byte only)
 * Six instructions, no flags. The two halves are for a loop that loads K between them, into M's register
 * (dw_pixels_3x3): MR_ASM_REQUANT_ZP_MUL (the start value and SMLAL: LO, HI from A, H0, M) and
 * MR_ASM_REQUANT_ZP_SAT8 (ASR of HI by K and SSAT into A). tests/kernels/test_simd_asm.py runs both forms on a
 * Cortex-M4 against mr_mbqm plus the zero point, saturated.
 */
#define MR_ASM_REQUANT_ZP_MUL(A, LO, HI, H0, M)                                                                \
    "and %[" LO "], %[" A "], #0x80000000\n\t"                                                                 \
    "orr %[" LO "], %[" LO "], #0x40000000\n\t"                                                                \
    "add %[" HI "], %[" H0 "], %[" A "], asr #31\n\t"                                                          \
    "smlal %[" LO "], %[" HI "], %[" A "], %[" M "]\n\t"
#define MR_ASM_REQUANT_ZP_SAT8(A, HI, K)                                                                       \
    "asr %[" HI "], %[" HI "], %[" K "]\n\t"                                                                   \
    "ssat %[" A "], #8, %[" HI "]\n\t"
#define MR_ASM_REQUANT_ZP(A, LO, HI, H0, M, K) MR_ASM_REQUANT_ZP_MUL(A, LO, HI, H0, M) MR_ASM_REQUANT_ZP_SAT8(A, HI, K)

/*
 * MultiplyByQuantizedMultiplier for accumulators below 2^30 in magnitude (the rescaled inputs and their sum in
 * the ADD kernels), from acc2 = 2 acc. SRDHM(acc, mult) = floor((acc mult + 2^30) / 2^31) = floor((acc2 mult
 * + 2^31) / 2^32) is one SMMULR (acc2 fits 31 bits, so INT32_MIN * INT32_MIN cannot occur): mr_requant_s0
 * is mr_mbqm(acc, mult, 0). RoundingDivideByPOT(y, r), halves away from zero, is floor((y + 2^(r-1) - [y < 0])
 * / 2^r), i.e. (y + 2^(r-1) + (y >> 31)) >> r: mr_requant_r is mr_mbqm(acc, mult, -r) + zp for r >= 1 with
 * h = 2^(r-1) + zp 2^r (mr_requant_r_h), since adding zp 2^r before the shift adds zp after it; |y| <= 2^30 and
 * for r <= 22 and |zp| <= 128 |h| < 2^29, so the sum does not overflow. tests/kernels/arm_dsp/test_kernels.py checks
 * both against mr_mbqm on the host.
 */
static MR_ALWAYS_INLINE int32_t mr_requant_s0_c(int32_t acc2, int32_t mult)
{
    return (int32_t)(((int64_t)acc2 * mult + ((int64_t)1 << 31)) >> 32);
}

/* One SMMULR on DSP cores (GCC -Os makes three instructions more of mr_requant_s0_c), checked against
 * mr_requant_s0_c and mr_mbqm on a Cortex-M4 by tests/kernels/test_simd_asm.py. */
static MR_ALWAYS_INLINE int32_t mr_requant_s0(int32_t acc2, int32_t mult)
{
#if MR_DSP
    int32_t y;
    __asm__("smmulr %0, %1, %2" : "=r"(y) : "r"(acc2), "r"(mult));
    return y;
#else
    return mr_requant_s0_c(acc2, mult);
#endif
}

static inline int32_t mr_requant_r_h(int32_t r, int32_t zp)
{
    return (int32_t)((1u << (uint32_t)(r - 1)) + ((uint32_t)zp << (uint32_t)r));
}

static MR_ALWAYS_INLINE int32_t mr_requant_r(int32_t acc2, int32_t mult, int32_t h, int32_t r)
{
    const int32_t y = mr_requant_s0(acc2, mult);
    return (y + h + (y >> 31)) >> r;
}

#if MR_DSP
/* Bytes 0 and 2 of w, sign-extended into two int16 lanes; the _odd forms take bytes 1 and 3 (one SXTB16 with
 * its rotation); the sxtab16 forms also add the packed pair `a` (minus the zero point in both lanes). */
static inline int32_t mr_even(uint32_t w)
{
    return __sxtb16((int32_t)w);
}

static inline int32_t mr_odd(uint32_t w)
{
    int32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
    return r;
}

static inline int32_t mr_even_add(int32_t a, uint32_t w)
{
    return __sxtab16(a, (int32_t)w);
}

static inline int32_t mr_odd_add(int32_t a, uint32_t w)
{
    int32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(w));
    return r;
}

/* SSAT #8. The intrinsic rather than assembly: GCC 12 -Os then makes mr_add_s8's broadcasting loop 5-6% fewer
 * instructions (186,748 -> 175,480 on a 16x16x8 + 1x1x8 ADD on mps2-an386) and 128 bytes smaller, the flat
 * loops the same. arm_acle.h's __ssat macro converts its builtin's unsigned result to int32_t inside, which
 * -Wsign-conversion (part of -Wconversion in C) would report at every use. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
#endif
static MR_ALWAYS_INLINE int32_t mr_ssat8(int32_t x)
{
    return __ssat(x, 8);
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* A value in both 16-bit lanes (for -zero_point, which lies in [-127, 128]). */
static inline int32_t mr_pack2(int32_t v)
{
    return (int32_t)(((uint32_t)v & 0xFFFFu) * 0x10001u);
}
#endif

#endif /* MICRO_RELAY_SIMD_H */
