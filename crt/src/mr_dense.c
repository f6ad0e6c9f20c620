/* nn.dense kernels, bit-exact with TFLite Micro's reference FULLY_CONNECTED (TFLM_ARITHMETIC.md sec. 2). */
#include "micro_relay/dense.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/simd.h"

#if !MR_DSP
/* Dot product of int8 vectors: the inner loop once the zero points are folded into the bias. */
static int32_t dot_s8(const int8_t *a, const int8_t *b, int32_t n)
{
    int32_t acc = 0, d;
    for (d = 0; d < n; ++d) {
        acc += (int32_t)a[d] * b[d];
    }
    return acc;
}
#endif

#if MR_DSP
/*
 * DSP cores: two units at a time over one input row, each input word sign-extended once for both
 * (SXTB16 even/odd bytes, then two SMLADs per unit); the last depth % 4 values one by one.
 */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static void dot2_s8(const int8_t *x, const int8_t *w0, const int8_t *w1, int32_t n, int32_t acc[2])
{
    int32_t a0 = acc[0], a1 = acc[1], d;
    for (d = 0; d + 4 <= n; d += 4) {
        const uint32_t xv = mr_load_s8x4(x + d), u = mr_load_s8x4(w0 + d), v = mr_load_s8x4(w1 + d);
        const int32_t xe = mr_even(xv), xo = mr_odd(xv);
        a0 = __smlad(xe, mr_even(u), a0);
        a0 = __smlad(xo, mr_odd(u), a0);
        a1 = __smlad(xe, mr_even(v), a1);
        a1 = __smlad(xo, mr_odd(v), a1);
    }
    for (; d < n; ++d) {
        a0 += x[d] * w0[d];
        a1 += x[d] * w1[d];
    }
    acc[0] = a0;
    acc[1] = a1;
}
#endif

void mr_dense_s8(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out)
{
    int32_t r, o, d;
#if MR_DSP
    if (p->folded_bias) {
        for (r = 0; r < p->rows; ++r) {
            const int8_t *x = in + r * p->depth;
            for (o = 0; o < p->units; o += 2) {
                const int32_t o1 = o + 1 < p->units ? o + 1 : o; /* an odd last unit goes twice */
                int32_t acc[2], j;
                acc[0] = p->folded_bias[o];
                acc[1] = p->folded_bias[o1];
                dot2_s8(x, w + o * p->depth, w + o1 * p->depth, p->depth, acc);
                for (j = 0; j < 2; ++j) {
                    const int32_t u = j ? o1 : o, c = p->per_channel ? u : 0;
                    const int32_t v = mr_requant_raw(acc[j], p->mult[c], p->shift[c]) + p->out_zp;
                    out[r * p->units + u] = (int8_t)MR_CLAMP(v, p->act_min, p->act_max);
                }
            }
        }
        return;
    }
#else
    if (p->folded_bias) {
        for (r = 0; r < p->rows; ++r) {
            const int8_t *x = in + r * p->depth;
            for (o = 0; o < p->units; ++o) {
                const int32_t c = p->per_channel ? o : 0;
                int32_t acc = p->folded_bias[o] + dot_s8(w + o * p->depth, x, p->depth);
                acc = mr_mbqm(acc, p->mult[c], p->shift[c]) + p->out_zp;
                out[r * p->units + o] = (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
            }
        }
        return;
    }
#endif
    for (r = 0; r < p->rows; ++r) {
        const int8_t *x = in + r * p->depth;
        for (o = 0; o < p->units; ++o) {
            const int8_t *row = w + o * p->depth;
            const int32_t c = p->per_channel ? o : 0;
            int32_t acc = 0;
            for (d = 0; d < p->depth; ++d) {
                acc += ((int32_t)row[d] - p->w_zp) * ((int32_t)x[d] - p->in_zp);
            }
            if (bias) {
                acc += bias[o];
            }
            acc = mr_mbqm(acc, p->mult[c], p->shift[c]) + p->out_zp;
            out[r * p->units + o] = (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
        }
    }
}

void mr_dense_s16(const mr_dense_q_params *p, const int16_t *in, const int8_t *w, const int32_t *bias, int16_t *out)
{
    int32_t r, o, d;
    for (r = 0; r < p->rows; ++r) {
        const int16_t *x = in + r * p->depth;
        for (o = 0; o < p->units; ++o) {
            const int8_t *row = w + o * p->depth;
            const int32_t c = p->per_channel ? o : 0;
            int32_t acc = 0;
            for (d = 0; d < p->depth; ++d) {
                acc += ((int32_t)row[d] - p->w_zp) * ((int32_t)x[d] - p->in_zp);
            }
            if (bias) {
                acc += bias[o];
            }
            acc = mr_mbqm(acc, p->mult[c], p->shift[c]) + p->out_zp;
            out[r * p->units + o] = (int16_t)MR_CLAMP(acc, p->act_min, p->act_max);
        }
    }
}

void mr_dense_s16_wide(const mr_dense_q_params *p, const int16_t *in, const int8_t *w, const int64_t *bias,
                       int16_t *out)
{
    int32_t r, o, d;
    for (r = 0; r < p->rows; ++r) {
        const int16_t *x = in + r * p->depth;
        for (o = 0; o < p->units; ++o) {
            const int8_t *row = w + o * p->depth;
            const int32_t c = p->per_channel ? o : 0;
            int64_t acc = 0;
            int32_t q;
            for (d = 0; d < p->depth; ++d) {
                acc += (int64_t)((int32_t)row[d] - p->w_zp) * ((int32_t)x[d] - p->in_zp);
            }
            if (bias) {
                acc += bias[o];
            }
            q = mr_mbqm64(acc, p->mult[c], p->shift[c]) + p->out_zp;
            out[r * p->units + o] = (int16_t)MR_CLAMP(q, p->act_min, p->act_max);
        }
    }
}

void mr_dense_f32(const mr_dense_f32_params *p, const float *in, const float *w, const float *bias, float *out)
{
    int32_t r, o, d;
    for (r = 0; r < p->rows; ++r) {
        const float *x = in + r * p->depth;
        for (o = 0; o < p->units; ++o) {
            const float *row = w + o * p->depth;
            float acc = 0.0f;
            for (d = 0; d < p->depth; ++d) {
                acc += x[d] * row[d];
            }
            if (bias) {
                acc += bias[o];
            }
            out[r * p->units + o] = MR_MIN(MR_MAX(acc, p->act_min), p->act_max);
        }
    }
}
