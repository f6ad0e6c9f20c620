/* nn.dense kernels, bit-exact with TFLite Micro's reference FULLY_CONNECTED (TFLM_ARITHMETIC.md sec. 2). */
#include "micro_relay/dense.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/simd.h"

#if defined(__GNUC__) || defined(__clang__)
#define MR_CONV_NOINLINE_DENSE __attribute__((noinline))
#else
#define MR_CONV_NOINLINE_DENSE
#endif

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
 * DSP cores, folded bias: four units at a time over one input row. Each input word is sign-extended once for
 * the four (SXTB16 even/odd bytes), then each unit's weight word is extended and takes two SMLADs: 25
 * instructions per 16 MACs. Units 1 and 3 are read at [w0 + depth] and [w2 + depth]. The last depth % 4 values
 * go one by one in C, and so do the units of a last block of fewer than four. Requantization: mr_requant_raw.
 */
static MR_CONV_NOINLINE_DENSE void dot4_s8(const int8_t *x, const int8_t *w0, int32_t depth, int32_t quads, int32_t acc[4])
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], xe, xo, t, u;
    const int8_t *w2 = w0 + 2 * depth;
    __asm__("1:\n\t"
            "ldr %[xe], [%[x]], #4\n\t"
            "sxtb16 %[xo], %[xe], ror #8\n\t"
            "sxtb16 %[xe], %[xe]\n\t"
            "ldr %[t], [%[w0], %[d]]\n\t"
            "sxtb16 %[u], %[t], ror #8\n\t"
            "sxtb16 %[t], %[t]\n\t"
            "smlad %[a1], %[xe], %[t], %[a1]\n\t"
            "smlad %[a1], %[xo], %[u], %[a1]\n\t"
            "ldr %[t], [%[w0]], #4\n\t"
            "sxtb16 %[u], %[t], ror #8\n\t"
            "sxtb16 %[t], %[t]\n\t"
            "smlad %[a0], %[xe], %[t], %[a0]\n\t"
            "smlad %[a0], %[xo], %[u], %[a0]\n\t"
            "ldr %[t], [%[w2], %[d]]\n\t"
            "sxtb16 %[u], %[t], ror #8\n\t"
            "sxtb16 %[t], %[t]\n\t"
            "smlad %[a3], %[xe], %[t], %[a3]\n\t"
            "smlad %[a3], %[xo], %[u], %[a3]\n\t"
            "ldr %[t], [%[w2]], #4\n\t"
            "sxtb16 %[u], %[t], ror #8\n\t"
            "sxtb16 %[t], %[t]\n\t"
            "smlad %[a2], %[xe], %[t], %[a2]\n\t"
            "smlad %[a2], %[xo], %[u], %[a2]\n\t"
            "subs %[n], %[n], #1\n\t"
            "bne 1b"
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w0] "+r"(w0), [w2] "+r"(w2),
              [n] "+r"(quads), [xe] "=&r"(xe), [xo] "=&r"(xo), [t] "=&r"(t), [u] "=&r"(u)
            : [d] "r"(depth)
            : "cc", "memory");
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* The folded-bias int8 product on DSP cores (see above). */
static MR_CONV_NOINLINE_DENSE void dense_s8_dsp(const mr_dense_q_params *p, const int8_t *in, const int8_t *w,
                                                int8_t *out)
{
    const int32_t depth = p->depth, units = p->units, quads = depth / 4;
    int32_t r, o, j, d;
    for (r = 0; r < p->rows; ++r) {
        const int8_t *x = in + r * depth;
        for (o = 0; o < units; o += 4) {
            int32_t acc[4], u[4];
            for (j = 0; j < 4; ++j) { /* the units past the last repeat it */
                u[j] = o + j < units ? o + j : units - 1;
                acc[j] = p->folded_bias[u[j]];
            }
            if (quads > 0 && o + 3 < units) {
                dot4_s8(x, w + o * depth, depth, quads, acc);
            }
            for (j = 0; j < 4; ++j) {
                const int8_t *row = w + u[j] * depth;
                const int32_t c = p->per_channel ? u[j] : 0;
                int32_t v;
                for (d = o + 3 < units ? 4 * quads : 0; d < depth; ++d) {
                    acc[j] += x[d] * row[d];
                }
                v = mr_requant_raw(acc[j], p->mult[c], p->shift[c]) + p->out_zp;
                out[r * units + u[j]] = (int8_t)MR_CLAMP(v, p->act_min, p->act_max);
            }
        }
    }
}
#endif

void mr_dense_s8(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out)
{
    int32_t r, o, d;
#if MR_DSP
    if (p->folded_bias) {
        dense_s8_dsp(p, in, w, out);
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
