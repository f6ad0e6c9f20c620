/* nn.log_softmax kernels. float32, per row: shift by the maximum so exp cannot overflow, sum the exps in
 * order, subtract the log of the sum. int8: TFLite Micro's LOG_SOFTMAX in gemmlowp fixed point, bit-exact.
 * out may be in (each element is read before it is written). */
#include <float.h>
#include <math.h>

#include "micro_relay/log_softmax.h"
#include "micro_relay/gemmlowp.h"

int mr_log_softmax_f32(const mr_log_softmax_f32_params *p, const float *in, float *out)
{
    int32_t r, c;
    for (r = 0; r < p->rows; ++r) {
        const float *x = in + r * p->depth;
        float *y = out + r * p->depth;
        float mx = -FLT_MAX;
        float sum = 0.0f;
        float log_sum;
        for (c = 0; c < p->depth; ++c) {
            mx = MR_MAX(mx, x[c]);
        }
        for (c = 0; c < p->depth; ++c) {
            sum += expf(x[c] - mx);
        }
        log_sum = logf(sum);
        for (c = 0; c < p->depth; ++c) {
            y[c] = (x[c] - mx) - log_sum;
        }
    }
    return MR_OK;
}

/* Saturating int32 sum and difference (TFLite's SaturatingAddNonGemmlowp and SaturatingSub). */
static inline int32_t mr_log_softmax_sat(int64_t x)
{
    return x > INT32_MAX ? INT32_MAX : (x < INT32_MIN ? INT32_MIN : (int32_t)x);
}

/*
 * log(x) in Q5.26 for x >= 1 in Q12.19, as TFLite's log_x_for_x_greater_than_or_equal_to_1: x is normalized
 * to r in [sqrt(1/2), sqrt(2)) times 2^z two ways (with and without a sqrt(1/2) pre-factor, keeping the
 * smaller r), then log(x) = z log(2) + a rational function of r, accumulated in Q6 and rescaled to Q5.
 */
static int32_t mr_log_softmax_log_q5(int32_t x)
{
    const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
    const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
    const int32_t shifted_quarter = mr_rdbpot(536870912, 6);
    const int clz_a = mr_gl_clz((uint32_t)x);
    const int32_t r_a = mr_satshl(mr_srdhm(mr_satshl(x, clz_a - 1), sqrt_half), 1);
    const int32_t z_a_pow2 = mr_log_softmax_sat((int64_t)mr_satshl(12 - clz_a, 25) + shifted_quarter);
    const int z_b_headroom = mr_gl_clz((uint32_t)mr_srdhm(x, sqrt_half)) - 1;
    const int32_t r_b = mr_satshl(x, z_b_headroom);
    const int32_t z_b_pow2 = mr_log_softmax_sat((int64_t)mr_satshl(12 - z_b_headroom, 25) - shifted_quarter);
    const int32_t r = MR_MIN(r_a, r_b);
    const int32_t z_pow2 = MR_MAX(z_a_pow2, z_b_pow2);
    const int32_t p = mr_gl_rounding_half_sum(r, sqrt_sqrt_half);
    const int32_t q0 = mr_gl_sub(r, sqrt_sqrt_half);
    const int32_t q = mr_gl_add(q0, q0);
    const int32_t common_sq = mr_srdhm(q, q);
    const int32_t num = mr_gl_add(mr_srdhm(q, r), mr_srdhm(mr_srdhm(q, common_sq), alpha_n));
    const int32_t denom_minus_one = mr_gl_add(
        mr_srdhm(p, mr_gl_add(mr_gl_add(alpha_i, q), mr_srdhm(alpha_d, common_sq))), mr_srdhm(alpha_f, q));
    const int32_t recip_denom = mr_gl_one_over_one_plus_x_for_x_in_0_1(denom_minus_one);
    const int32_t num_scaled = mr_rdbpot(num, 6);
    return mr_satshl(mr_gl_add(mr_srdhm(z_pow2, log_2), mr_srdhm(num_scaled, recip_denom)), 1);
}

/*
 * Per row: max, the sum of exps of the differences in Q12.19, its log L in Q5.26, then each output as
 * RDBPOT(d_Q5 - L, 22) + 127, or -128 at or below the limit where d_Q5 - L would leave Q5.26. Prepare
 * bounds |d| <= -diff_min wherever d is scaled, so d << shift stays in range. in may equal out.
 */
int mr_log_softmax_s8(const mr_log_softmax_s8_params *p, const int8_t *in, int8_t *out)
{
    int32_t r, c;
    for (r = 0; r < p->rows; ++r) {
        const int8_t *x = in + r * p->depth;
        int8_t *y = out + r * p->depth;
        int32_t mx = INT8_MIN, sum = 0, log_sum, limit;
        for (c = 0; c < p->depth; ++c) {
            mx = MR_MAX(mx, (int32_t)x[c]);
        }
        for (c = 0; c < p->depth; ++c) {
            const int32_t d = (int32_t)x[c] - mx;
            if (d >= p->diff_min) {
                sum = mr_gl_add(sum, mr_rdbpot(mr_gl_exp_on_negative_values(mr_mbqm(d, p->mult, p->shift), 5), 12));
            }
        }
        log_sum = mr_log_softmax_log_q5(sum);
        limit = MR_MAX(p->diff_min - 1, mr_mbqm(mr_gl_add(log_sum, INT32_MIN), p->rev_mult, p->rev_shift));
        for (c = 0; c < p->depth; ++c) {
            const int32_t d = (int32_t)x[c] - mx;
            int32_t v = INT8_MIN;
            if (d > limit) {
                v = mr_rdbpot(mr_gl_sub(mr_mbqm(d, p->mult, p->shift), log_sum), 22) + 127;
                v = MR_CLAMP(v, INT8_MIN, INT8_MAX);
            }
            y[c] = (int8_t)v;
        }
    }
    return MR_OK;
}
