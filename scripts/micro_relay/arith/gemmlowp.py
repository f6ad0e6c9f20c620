"""gemmlowp's fixed-point transcendental functions over numpy arrays, bit-exact (TFLM_ARITHMETIC.md sec. 5).

TFLite Micro's int8 SOFTMAX, LOGISTIC and TANH evaluate exp, 1/(1+x), logistic and tanh in gemmlowp's
fixed point (fixedpoint/fixedpoint.h). A value with k integer bits is an int32 raw r meaning r / 2^(31-k).
Their rules, which every function below follows:
- `+` and `-` wrap in int32; a product of two fixed-point values is SRDHM and its integer bits add up;
- Rescale to fewer integer bits is a saturating left shift, to more a RoundingDivideByPOT;
- ExactMulByPot only relabels the integer bits (the raw value is unchanged);
- One() is INT32_MAX with 0 integer bits and 1 << (31-k) otherwise.

All values are int64 arrays holding int32 values. The C runtime mirrors this file in
crt/include/micro_relay/gemmlowp.h, function for function.
"""

from __future__ import annotations

import numpy as np

from .fixedpoint import INT32_MAX, rdbpot, satshl, srdhm, wrap32

EXP_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535), (3, 720401),
              (4, 242))  # exp(-2^k) in Q0.31, for the bits of the input's integer and top fractional part


def _i64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def add(a, b):
    return wrap32(_i64(a) + _i64(b))


def sub(a, b):
    return wrap32(_i64(a) - _i64(b))


def rounding_half_sum(a, b):
    """(a + b) / 2 rounded to nearest, halves away from zero (C division truncates toward zero)."""
    total = _i64(a) + _i64(b)
    t = total + np.where(total >= 0, 1, -1)
    return np.where(t >= 0, t // 2, -((-t) // 2))


def exp_on_interval_between_negative_one_quarter_and_0_excl(a):
    """exp(a) for a in [-1/4, 0), Q0.31 in and out: a Taylor expansion around -1/8."""
    x = add(a, 1 << 28)
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    x4_over_4 = rdbpot(x4, 2)
    poly = rdbpot(add(srdhm(add(x4_over_4, x3), 715827883), x2), 1)
    constant = 1895147668  # exp(-1/8)
    return add(constant, srdhm(constant, add(x, poly)))


def exp_on_negative_values(a, integer_bits: int):
    """exp(a) for a <= 0 with `integer_bits` integer bits; result in Q0.31 (a = 0 gives INT32_MAX)."""
    a = _i64(a)
    fractional_bits = 31 - integer_bits
    quarter = 1 << (fractional_bits - 2)
    a_mod_quarter_minus_quarter = sub(a & (quarter - 1), quarter)
    result = exp_on_interval_between_negative_one_quarter_and_0_excl(satshl(a_mod_quarter_minus_quarter, integer_bits))
    remainder = sub(a_mod_quarter_minus_quarter, a)
    for exponent, multiplier in EXP_BARREL:
        if integer_bits > exponent:
            bit = (remainder >> (fractional_bits + exponent)) & 1
            result = np.where(bit != 0, srdhm(result, multiplier), result)
    if integer_bits > 5:
        result = np.where(a < -(1 << (36 - integer_bits)), 0, result)
    return np.where(a == 0, INT32_MAX, result)


def _newton_reciprocal(half_denominator):
    """Three Newton-Raphson steps for 1/half_denominator, in Q2.29 (the shared core of the two divisions)."""
    x = add(1515870810, srdhm(half_denominator, -1010580540))  # 48/17 - 32/17 * d
    for _ in range(3):
        one_minus = sub(1 << 29, srdhm(half_denominator, x))
        x = add(x, satshl(srdhm(x, one_minus), 2))
    return x


def one_over_one_plus_x_for_x_in_0_1(a):
    """1 / (1 + a) for a in Q0.31 [0, 1); result Q0.31."""
    x = _newton_reciprocal(rounding_half_sum(a, INT32_MAX))
    return satshl(x, 1)  # ExactMulByPot<-1> relabels Q2 as Q1; Rescale<0> shifts left by 1


def one_minus_x_over_one_plus_x_for_x_in_0_1(a):
    """(1 - a) / (1 + a) for a in Q0.31 [0, 1); result Q0.31."""
    x = _newton_reciprocal(rounding_half_sum(a, INT32_MAX))
    return satshl(sub(x, 1 << 29), 2)


def logistic(a, integer_bits: int):
    """1 / (1 + exp(-a)) in Q0.31 for a with `integer_bits` integer bits."""
    a = _i64(a)
    positive = a > 0
    abs_a = np.where(positive, a, wrap32(-a))
    if_positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(wrap32(-abs_a), integer_bits))
    if_negative = sub(INT32_MAX, if_positive)
    return np.where(a == 0, 1 << 30, np.where(positive, if_positive, if_negative))


def tanh(a, integer_bits: int):
    """tanh(a) in Q0.31; exp runs on 2a, i.e. the same raw value with one more integer bit."""
    a = _i64(a)
    negative = a < 0
    n = np.where(negative, a, wrap32(-a))
    t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, integer_bits + 1))
    return np.where(a == 0, 0, np.where(negative, wrap32(-t), t))


def count_leading_zeros(x):
    """Leading zero bits of x as a uint32 (32 for 0)."""
    x = _i64(x) & 0xFFFFFFFF
    bits = np.zeros(x.shape, dtype=np.int64)
    for shift in (16, 8, 4, 2, 1):
        top = (x >> (32 - shift)) == 0
        bits = np.where(top, bits + shift, bits)
        x = np.where(top, (x << shift) & 0xFFFFFFFF, x)
    return np.where(x == 0, bits + 1, bits).clip(0, 32)


def reciprocal(x, integer_digits: int):
    """TFLM's GetReciprocal: (Q0.31 scale, num_bits_over_unit) with x * 2^-(31-digits) ~ 2^bits / scale."""
    x = _i64(x)
    headroom_plus_one = count_leading_zeros(x)
    shifted = np.where(headroom_plus_one < 32, (x << np.minimum(headroom_plus_one, 31)) & 0xFFFFFFFF, 0)
    shifted_minus_one = wrap32(shifted - (1 << 31))
    return one_over_one_plus_x_for_x_in_0_1(shifted_minus_one), integer_digits - headroom_plus_one
