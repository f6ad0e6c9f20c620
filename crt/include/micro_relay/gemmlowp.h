/*
 * gemmlowp's fixed-point transcendental functions, as TFLite Micro's int8 SOFTMAX, LOGISTIC and TANH use
 * them (TFLM_ARITHMETIC.md section 5), bit-exact.
 *
 * A fixed-point value with k integer bits is an int32 raw r meaning r / 2^(31-k). Sums and differences wrap
 * in int32 (done through uint32 here, so C has no signed overflow), a product is mr_srdhm, rescaling to fewer
 * integer bits is a saturating left shift and to more a rounding right shift. The numpy twin is
 * scripts/micro_relay/arith/gemmlowp.py, function for function.
 */
#ifndef MICRO_RELAY_GEMMLOWP_H
#define MICRO_RELAY_GEMMLOWP_H

#include "crt.h"
#include "fixedpoint.h"

static inline int32_t mr_gl_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline int32_t mr_gl_sub(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a - (uint32_t)b);
}

/* (a + b) / 2, halves away from zero. */
static inline int32_t mr_gl_rounding_half_sum(int32_t a, int32_t b)
{
    const int64_t sum = (int64_t)a + (int64_t)b;
    return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* exp(a) for a in [-1/4, 0), Q0.31 in and out: a Taylor expansion around -1/8. */
static inline int32_t mr_gl_exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a)
{
    const int32_t constant_term = 1895147668; /* exp(-1/8) */
    const int32_t one_third = 715827883;
    const int32_t x = mr_gl_add(a, (int32_t)1 << 28);
    const int32_t x2 = mr_srdhm(x, x);
    const int32_t x3 = mr_srdhm(x2, x);
    const int32_t x4 = mr_srdhm(x2, x2);
    const int32_t x4_over_4 = mr_rdbpot(x4, 2);
    const int32_t poly = mr_rdbpot(mr_gl_add(mr_srdhm(mr_gl_add(x4_over_4, x3), one_third), x2), 1);
    return mr_gl_add(constant_term, mr_srdhm(constant_term, mr_gl_add(x, poly)));
}

/* exp(a) for a <= 0 with `integer_bits` (0..6) integer bits; Q0.31 result, INT32_MAX for a == 0. */
static inline int32_t mr_gl_exp_on_negative_values(int32_t a, int integer_bits)
{
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    const int fractional_bits = 31 - integer_bits;
    const int32_t quarter = (int32_t)1 << (fractional_bits - 2);
    const int32_t a_mod_quarter_minus_quarter = mr_gl_sub(a & (quarter - 1), quarter);
    const int32_t remainder = mr_gl_sub(a_mod_quarter_minus_quarter, a);
    int32_t result = mr_gl_exp_on_interval_between_negative_one_quarter_and_0_excl(
        mr_satshl(a_mod_quarter_minus_quarter, integer_bits));
    int k;
    for (k = -2; k <= 4 && k < integer_bits; ++k) {
        if (remainder & ((int32_t)1 << (fractional_bits + k))) {
            result = mr_srdhm(result, barrel[k + 2]);
        }
    }
    if (integer_bits > 5 && a < -((int32_t)1 << (36 - integer_bits))) {
        result = 0;
    }
    return a == 0 ? INT32_MAX : result;
}

/* Three Newton-Raphson steps for 1 / half_denominator, in Q2.29. */
static inline int32_t mr_gl_newton_reciprocal(int32_t half_denominator)
{
    int32_t x = mr_gl_add(1515870810, mr_srdhm(half_denominator, -1010580540)); /* 48/17 - 32/17 d */
    int i;
    for (i = 0; i < 3; ++i) {
        const int32_t one_minus = mr_gl_sub((int32_t)1 << 29, mr_srdhm(half_denominator, x));
        x = mr_gl_add(x, mr_satshl(mr_srdhm(x, one_minus), 2));
    }
    return x;
}

/* 1 / (1 + a) for a in Q0.31 [0, 1); Q0.31 result. */
static inline int32_t mr_gl_one_over_one_plus_x_for_x_in_0_1(int32_t a)
{
    return mr_satshl(mr_gl_newton_reciprocal(mr_gl_rounding_half_sum(a, INT32_MAX)), 1);
}

/* (1 - a) / (1 + a) for a in Q0.31 [0, 1); Q0.31 result. */
static inline int32_t mr_gl_one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a)
{
    const int32_t x = mr_gl_newton_reciprocal(mr_gl_rounding_half_sum(a, INT32_MAX));
    return mr_satshl(mr_gl_sub(x, (int32_t)1 << 29), 2);
}

/* 1 / (1 + exp(-a)) in Q0.31, for a with `integer_bits` integer bits. */
static inline int32_t mr_gl_logistic(int32_t a, int integer_bits)
{
    int32_t abs_a, if_positive;
    if (a == 0) {
        return (int32_t)1 << 30;
    }
    abs_a = a > 0 ? a : mr_gl_sub(0, a);
    if_positive = mr_gl_one_over_one_plus_x_for_x_in_0_1(
        mr_gl_exp_on_negative_values(mr_gl_sub(0, abs_a), integer_bits));
    return a > 0 ? if_positive : mr_gl_sub(INT32_MAX, if_positive);
}

/* tanh(a) in Q0.31; exp runs on 2a, i.e. the same raw value read with one more integer bit. */
static inline int32_t mr_gl_tanh(int32_t a, int integer_bits)
{
    int32_t t;
    if (a == 0) {
        return 0;
    }
    t = mr_gl_one_minus_x_over_one_plus_x_for_x_in_0_1(
        mr_gl_exp_on_negative_values(a < 0 ? a : mr_gl_sub(0, a), integer_bits + 1));
    return a < 0 ? mr_gl_sub(0, t) : t;
}

/* Leading zero bits of a 32-bit value (32 for 0). */
static inline int mr_gl_clz(uint32_t x)
{
    int n = 0;
    if (x == 0) {
        return 32;
    }
    while (!(x & 0x80000000u)) {
        x <<= 1;
        ++n;
    }
    return n;
}

/* TFLM's GetReciprocal: 1/x as a Q0.31 scale and the bits of x above one (x has integer_digits bits). */
static inline int32_t mr_gl_reciprocal(int32_t x, int integer_digits, int *num_bits_over_unit)
{
    const int headroom_plus_one = mr_gl_clz((uint32_t)x);
    const uint32_t shifted = headroom_plus_one < 32 ? (uint32_t)x << headroom_plus_one : 0u;
    *num_bits_over_unit = integer_digits - headroom_plus_one;
    return mr_gl_one_over_one_plus_x_for_x_in_0_1((int32_t)(shifted - 0x80000000u));
}

#endif /* MICRO_RELAY_GEMMLOWP_H */
