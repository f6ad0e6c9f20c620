/* nn.softmax kernels, bit-exact with TFLite Micro's reference SOFTMAX (TFLM_ARITHMETIC.md section 5). */
#include <float.h>
#include <math.h>

#include "micro_relay/softmax.h"
#include "micro_relay/gemmlowp.h"

/* exp(beta * in_s * d) in Q0.31 for a non-positive difference d >= diff_min. */
static inline int32_t mr_softmax_exp(const mr_softmax_q_params *p, int32_t d)
{
    const int32_t scaled = mr_srdhm((int32_t)((uint32_t)d << p->shift), p->mult);
    return mr_gl_exp_on_negative_values(scaled, 5);
}

/*
 * One row: max, sum of exps in Q12.19, reciprocal, and each output as RDBPOT(recip * exp, exponent) + min,
 * where exponent = 12 - clz(sum) + 31 - out_bits (capped at 31, where TFLite Micro's shift is undefined).
 * Element c of the input is read before element c of the output is written, so in may equal out.
 */
#define MR_SOFTMAX_ROW(IN, OUT, OUT_T, OUT_BITS, OUT_MIN, OUT_MAX)                          \
    do {                                                                                    \
        int32_t c, mx = INT8_MIN, sum = 0, exponent;                                        \
        int bits_over_unit;                                                                 \
        int32_t recip;                                                                      \
        for (c = 0; c < p->depth; ++c) {                                                    \
            mx = MR_MAX(mx, (int32_t)(IN)[c]);                                              \
        }                                                                                   \
        for (c = 0; c < p->depth; ++c) {                                                    \
            const int32_t d = (int32_t)(IN)[c] - mx;                                        \
            if (d >= p->diff_min) {                                                         \
                sum = mr_gl_add(sum, mr_rdbpot(mr_softmax_exp(p, d), 12));                  \
            }                                                                               \
        }                                                                                   \
        recip = mr_gl_reciprocal(sum, 12, &bits_over_unit);                                 \
        exponent = MR_MIN(bits_over_unit + 31 - (OUT_BITS), 31);                            \
        for (c = 0; c < p->depth; ++c) {                                                    \
            const int32_t d = (int32_t)(IN)[c] - mx;                                        \
            int32_t y = (OUT_MIN);                                                          \
            if (d >= p->diff_min) {                                                         \
                y = mr_rdbpot(mr_srdhm(recip, mr_softmax_exp(p, d)), exponent) + (OUT_MIN); \
                y = MR_CLAMP(y, (OUT_MIN), (OUT_MAX));                                      \
            }                                                                               \
            (OUT)[c] = (OUT_T)y;                                                            \
        }                                                                                   \
    } while (0)

int mr_softmax_s8_s8(const mr_softmax_q_params *p, const int8_t *in, int8_t *out)
{
    int32_t r;
    for (r = 0; r < p->rows; ++r) {
        MR_SOFTMAX_ROW(in + r * p->depth, out + r * p->depth, int8_t, 8, INT8_MIN, INT8_MAX);
    }
    return MR_OK;
}

int mr_softmax_s8_s16(const mr_softmax_q_params *p, const int8_t *in, int16_t *out)
{
    int32_t r;
    for (r = 0; r < p->rows; ++r) {
        MR_SOFTMAX_ROW(in + r * p->depth, out + r * p->depth, int16_t, 16, INT16_MIN, INT16_MAX);
    }
    return MR_OK;
}

/* TFLite's 513-entry table lookup for int16 inputs: lut[256 + (v >> 7)] plus 7-bit linear interpolation. */
static inline int32_t mr_softmax_lut(int32_t v, const int16_t *lut)
{
    const int32_t index = 256 + (v >> 7);
    const int16_t slope = (int16_t)(lut[index + 1] - lut[index]);
    return (int16_t)(lut[index] + ((slope * (v & 0x7F) + 64) >> 7));
}

/* Exps (cached in the output row, as TFLite Micro does), their sum, a table reciprocal, a rounding shift. */
int mr_softmax_s16_s16(const mr_softmax_s16_params *p, const int16_t *in, int16_t *out)
{
    int32_t r, c;
    for (r = 0; r < p->rows; ++r) {
        const int16_t *x = in + r * p->depth;
        int16_t *y = out + r * p->depth;
        int32_t mx = INT16_MIN, sum = 0, shifted, recip;
        int headroom, right;
        for (c = 0; c < p->depth; ++c) {
            mx = MR_MAX(mx, (int32_t)x[c]);
        }
        for (c = 0; c < p->depth; ++c) {
            const int32_t scaled = mr_mbqm((int32_t)x[c] - mx, p->mult, p->shift) + 32767;
            y[c] = (int16_t)mr_softmax_lut(MR_CLAMP(scaled, INT16_MIN, INT16_MAX), p->exp_lut);
            sum += y[c];
        }
        headroom = mr_gl_clz((uint32_t)sum);
        shifted = (int32_t)((((int64_t)sum << (headroom - 1)) + (1 << 13)) >> 14) - ((1 << 15) + (1 << 16));
        recip = mr_softmax_lut(MR_CLAMP(shifted, INT16_MIN, INT16_MAX), p->recip_lut);
        right = 31 - headroom;
        for (c = 0; c < p->depth; ++c) {
            const int32_t v = (int32_t)(((int64_t)y[c] * recip + ((int64_t)1 << (right - 1))) >> right);
            y[c] = (int16_t)MR_CLAMP(v, 0, INT16_MAX);
        }
    }
    return MR_OK;
}

int mr_softmax_f32(const mr_softmax_f32_params *p, const float *in, float *out)
{
    int32_t r, c;
    for (r = 0; r < p->rows; ++r) {
        const float *x = in + r * p->depth;
        float *y = out + r * p->depth;
        float mx = -FLT_MAX;
        float sum = 0.0f;
        for (c = 0; c < p->depth; ++c) {
            mx = MR_MAX(mx, x[c]);
        }
        for (c = 0; c < p->depth; ++c) {
            const float e = expf((x[c] - mx) * p->beta);
            y[c] = e;
            sum += e;
        }
        for (c = 0; c < p->depth; ++c) {
            y[c] = y[c] / sum;
        }
    }
    return MR_OK;
}
