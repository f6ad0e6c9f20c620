/* L2_NORMALIZATION, bit-exact with TFLite Micro (ops/l2_normalize.py states the arithmetic).
 * int8: per row, the int32 sum of squared (q - zp), its inverse square root as a multiplier and shift
 * (GetInvSqrtQuantizedMultiplierExp: gemmlowp Newton iterations in Q3), then one MultiplyByQuantizedMultiplier
 * per element into scale 1/128. float: x / max(sqrtf(sum of squares), 1e-6f). */
#include <math.h>

#include "micro_relay/gemmlowp.h"
#include "micro_relay/l2_normalize.h"

/* GetInvSqrtQuantizedMultiplierExp(input, kReverseShift): *shift is a left shift (<= 0). */
static void mr_inv_sqrt(int32_t input, int32_t *multiplier, int32_t *shift)
{
    int32_t right = 11, pairs, fixed, half, x;
    int i;
    if (input <= 1) {
        *multiplier = INT32_MAX;
        *shift = 0;
        return;
    }
    while (input >= (1 << 29)) {
        input /= 4;
        ++right;
    }
    pairs = (int32_t)((mr_gl_clz((uint32_t)input) - 1) / 2 - 1);
    right -= pairs;
    input = (int32_t)((uint32_t)input << (2 * pairs));
    fixed = input >> 1;
    half = mr_rdbpot(fixed, 1);
    x = 1 << 28; /* 1.0 in Q3 */
    for (i = 0; i < 5; ++i) {
        const int32_t x3 = mr_satshl(mr_srdhm(mr_srdhm(x, x), x), 6);
        x = mr_satshl(mr_gl_sub(mr_srdhm((1 << 28) + (1 << 27), x), mr_srdhm(half, x3)), 3);
    }
    x = mr_srdhm(x, 1518500250); /* sqrt(2) / 2 in Q0 */
    if (right < 0) {
        x = (int32_t)((uint32_t)x << -right);
        right = 0;
    }
    *multiplier = x;
    *shift = -right;
}

int mr_l2_normalize_s8(const mr_l2_normalize_s8_params *p, const int8_t *in, int8_t *out)
{
    int32_t o, c;
    for (o = 0; o < p->outer; ++o) {
        const int8_t *x = in + o * p->depth;
        int8_t *y = out + o * p->depth;
        int32_t acc = 0, multiplier, shift;
        for (c = 0; c < p->depth; ++c) {
            const int32_t d = x[c] - p->in_zp;
            acc += d * d;
        }
        mr_inv_sqrt(acc, &multiplier, &shift);
        for (c = 0; c < p->depth; ++c) {
            const int32_t q = mr_mbqm(x[c] - p->in_zp, multiplier, shift + 7);
            y[c] = (int8_t)MR_CLAMP(q, INT8_MIN, INT8_MAX);
        }
    }
    return MR_OK;
}

int mr_l2_normalize_f32(const mr_l2_normalize_f32_params *p, const float *in, float *out)
{
    int32_t o, c;
    for (o = 0; o < p->outer; ++o) {
        const float *x = in + o * p->depth;
        float *y = out + o * p->depth;
        float sq = 0.0f, norm;
        for (c = 0; c < p->depth; ++c) {
            sq += x[c] * x[c];
        }
        norm = sqrtf(sq);
        norm = norm < 1e-6f ? 1e-6f : norm; /* std::max(norm, epsilon): a NaN norm stays NaN */
        for (c = 0; c < p->depth; ++c) {
            y[c] = x[c] / norm;
        }
    }
    return MR_OK;
}
