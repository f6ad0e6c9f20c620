"""TFLite's fixed-point log for int8 LOG_SOFTMAX (internal/common.h log_x_for_x_greater_than_or_equal_to_1),
Q12.19 in, Q5.26 out, bit-exact over numpy int64 arrays holding int32 values.

It normalizes x to r in [sqrt(1/2), sqrt(2)) times a power of two two ways (with and without a sqrt(1/2)
pre-factor, keeping the smaller r), then log(x) = z * log(2) + a rational approximation in r around
2^-1/4, accumulated with one extra integer bit (Q6) and rescaled to Q5. crt/src/mr_log_softmax.c mirrors it.
"""

from __future__ import annotations

import numpy as np

from ..arith import gemmlowp
from ..arith.fixedpoint import INT32_MAX, INT32_MIN, rdbpot, satshl, srdhm

LOG_2 = 1488522236
SQRT_SQRT_HALF = 1805811301
SQRT_HALF = 1518500250
ONE_QUARTER = 536870912
ALPHA_N = 117049297
ALPHA_D = 127690142
ALPHA_I = 1057819769
ALPHA_F = 638450708
IN_BITS = 12   # the sum of exps, Q12.19
ACC_BITS = 6   # the output's 5 integer bits plus one of headroom


def _saturate(x):
    return np.clip(np.asarray(x, dtype=np.int64), INT32_MIN, INT32_MAX)


def log_q5(x):
    """log(x) in Q5.26 for x >= 1 in Q12.19."""
    z_a = np.asarray(x, dtype=np.int64)
    clz_a = gemmlowp.count_leading_zeros(z_a)
    shifted_quarter = rdbpot(ONE_QUARTER, ACC_BITS)
    r_a = satshl(srdhm(satshl(z_a, clz_a - 1), SQRT_HALF), 1)
    z_a_pow2 = _saturate(satshl(IN_BITS - clz_a, 31 - ACC_BITS) + shifted_quarter)
    z_b_headroom = gemmlowp.count_leading_zeros(srdhm(z_a, SQRT_HALF)) - 1
    r_b = satshl(z_a, z_b_headroom)
    z_b_pow2 = _saturate(satshl(IN_BITS - z_b_headroom, 31 - ACC_BITS) - shifted_quarter)
    r = np.minimum(r_a, r_b)
    z_pow2 = np.maximum(z_a_pow2, z_b_pow2)
    p = gemmlowp.rounding_half_sum(r, SQRT_SQRT_HALF)
    q = gemmlowp.sub(r, SQRT_SQRT_HALF)
    q = gemmlowp.add(q, q)
    common_sq = srdhm(q, q)
    num = gemmlowp.add(srdhm(q, r), srdhm(srdhm(q, common_sq), ALPHA_N))
    denom_minus_one = gemmlowp.add(srdhm(p, gemmlowp.add(gemmlowp.add(ALPHA_I, q), srdhm(ALPHA_D, common_sq))),
                                   srdhm(ALPHA_F, q))
    recip_denom = gemmlowp.one_over_one_plus_x_for_x_in_0_1(denom_minus_one)
    num_scaled = rdbpot(num, ACC_BITS)
    return satshl(gemmlowp.add(srdhm(z_pow2, LOG_2), srdhm(num_scaled, recip_denom)), 1)
