/*
 * TFLite Micro's fixed-point primitives (see TFLM_ARITHMETIC.md sections 0-1), bit-exact.
 *
 * mr_srdhm:  SaturatingRoundingDoublingHighMul, floor((a*b + 2^30) / 2^31); INT32_MIN*INT32_MIN saturates.
 * mr_rdbpot: RoundingDivideByPOT, x / 2^e with halves rounded away from zero.
 * mr_mbqm:   MultiplyByQuantizedMultiplier with TFLite Micro's double rounding.
 * mr_mbqm64: the int64-accumulator variant of the 16x8 kernels.
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

#endif /* MICRO_RELAY_FIXEDPOINT_H */
