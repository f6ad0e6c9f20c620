/*
 * TFLite Micro's fixed-point primitives (see TFLM_ARITHMETIC.md sections 0-1), bit-exact.
 *
 * mr_srdhm:  SaturatingRoundingDoublingHighMul, floor((a*b + 2^30) / 2^31); INT32_MIN*INT32_MIN saturates.
 * mr_rdbpot: RoundingDivideByPOT, x / 2^e with halves rounded away from zero.
 * mr_mbqm:   MultiplyByQuantizedMultiplier with TFLite Micro's double rounding.
 * mr_mbqm64: the int64-accumulator variant of the 16x8 kernels.
 * mr_requant_single: the product rounded once, for nodes with rounding "single" (ONNX QDQ models).
 */
#ifndef MICRO_RELAY_FIXEDPOINT_H
#define MICRO_RELAY_FIXEDPOINT_H

#include "crt.h"

static inline int32_t mr_srdhm(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) >> 31);
}

static inline int32_t mr_rdbpot(int32_t x, int exponent)
{
    const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

static inline int32_t mr_satshl(int32_t x, int exponent)
{
    const int64_t shifted = (int64_t)x * ((int64_t)1 << exponent);
    return shifted > INT32_MAX ? INT32_MAX : (shifted < INT32_MIN ? INT32_MIN : (int32_t)shifted);
}

static inline int32_t mr_mbqm(int32_t x, int32_t multiplier, int32_t shift)
{
    const int left = shift > 0 ? shift : 0;
    const int right = shift > 0 ? 0 : -shift;
    return mr_rdbpot(mr_srdhm((int32_t)((uint32_t)x << left), multiplier), right);
}

static inline int32_t mr_mbqm64(int64_t x, int32_t multiplier, int32_t shift)
{
    const int32_t m16 = multiplier < 0x7FFF0000 ? ((multiplier + (1 << 15)) >> 16) : 0x7FFF;
    const int total_shift = 15 - shift;
    const int64_t rounding = (int64_t)1 << (total_shift - 1);
    return (int32_t)((x * m16 + rounding) >> total_shift);
}

/*
 * Single rounding: acc * mult * 2^(shift - 31) rounded once, halves up, (acc mult + 2^(30 - shift)) >> (31 - shift)
 * (TFLite's TFLITE_SINGLE_ROUNDING form). An ONNX QDQ node means its real-valued rescale rounded once, which
 * TFLite Micro's two roundings miss by a step now and then; the compiler gives such nodes this one instead.
 * Exact in int64 for shift in [-31, 30] (prepare refuses more), saturated to +-2^30 (mr_saturate_single): far
 * outside any output type, with room left for a zero point. The usual shifts (below 0, a total shift of 32 or
 * more) take the high word and a 32-bit shift: |acc mult| < 2^62 keeps the result within +-2^30 without a test,
 * and floor(floor(v / 2^32) / 2^(t - 32)) = floor(v / 2^t).
 */
#define MR_SINGLE_LIMIT ((int64_t)1 << 30)

static inline int32_t mr_saturate_single(int64_t v)
{
    return (int32_t)(v > MR_SINGLE_LIMIT ? MR_SINGLE_LIMIT : (v < -MR_SINGLE_LIMIT ? -MR_SINGLE_LIMIT : v));
}

static inline int32_t mr_shift_single(int64_t v, int32_t total)
{
    if (total >= 32) {
        return (int32_t)(v >> 32) >> (total - 32);
    }
    return mr_saturate_single(v >> total);
}

static inline int32_t mr_requant_single(int32_t acc, int32_t mult, int32_t shift)
{
    const int32_t total = 31 - shift;
    return mr_shift_single((int64_t)acc * mult + ((int64_t)1 << (total - 1)), total);
}

#endif /* MICRO_RELAY_FIXEDPOINT_H */
