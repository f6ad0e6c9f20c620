/* int16 RSQRT, bit-exact with TFLite Micro's RsqrtEvalQuantized and GetInvSqrtQuantizedMultiplierExp
 * (I/common.h): the input normalized by pairs of bits into [2^27, 2^29), five Newton steps for 1/sqrt in
 * gemmlowp fixed point with 3 integer bits (products are SRDHM, rescales saturating shifts), times sqrt(2)/2. */
#include "micro_relay/rsqrt.h"
#include "micro_relay/fixedpoint.h"

#define MR_HALF_THREE_Q3 ((1 << 28) + (1 << 27))
#define MR_HALF_SQRT2_Q0 1518500250

static int mr_leading_zeros(uint32_t x)
{
    int n = 0;
    while (n < 32 && (x & 0x80000000u) == 0u) {
        x <<= 1;
        ++n;
    }
    return n;
}

/* GetInvSqrtQuantizedMultiplierExp(v, kReverseShift) for 1 < v < 2^15: the multiplier and its left shift. */
static void mr_inv_sqrt(int32_t v, int32_t *multiplier, int32_t *shift)
{
    const int pairs = (mr_leading_zeros((uint32_t)v) - 1) / 2 - 1;
    int32_t right = 11 - pairs;
    const int32_t input = (int32_t)((uint32_t)v << (2 * pairs));
    const int32_t half_input = mr_rdbpot(input >> 1, 1);
    int32_t x = 1 << 28;
    int k;
    for (k = 0; k < 5; ++k) {
        const int32_t x3 = mr_satshl(mr_srdhm(mr_srdhm(x, x), x), 6);
        const uint32_t difference = (uint32_t)mr_srdhm(MR_HALF_THREE_Q3, x) - (uint32_t)mr_srdhm(half_input, x3);
        x = mr_satshl((int32_t)difference, 3);
    }
    x = mr_srdhm(x, MR_HALF_SQRT2_Q0);
    if (right < 0) {
        x = (int32_t)((uint32_t)x << -right);
        right = 0;
    }
    *multiplier = x;
    *shift = -right;
}

int mr_rsqrt_s16(const mr_rsqrt_s16_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t v = in[i];
        int32_t y;
        if (v < 0) {
            return MR_ERR_DOMAIN;
        }
        if (v == 0) {
            y = INT16_MAX;
        } else {
            int32_t m = INT32_MAX, s = 0;
            if (v > 1) {
                mr_inv_sqrt(v, &m, &s);
            }
            y = mr_mbqm(mr_mbqm(1, m, s + 20), p->mult, p->shift);
            y = MR_CLAMP(y, INT16_MIN, INT16_MAX);
        }
        out[i] = (int16_t)y;
    }
    return MR_OK;
}
