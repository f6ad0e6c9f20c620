/* nn.dense kernels, bit-exact with TFLite Micro's reference FULLY_CONNECTED (TFLM_ARITHMETIC.md sec. 2). The int8
 * portable path, mr_dense_s8_portable, is built for every core; mr_dense_s8 is the DSP path on DSP builds
 * (MR_DSP_ASM, micro_relay/simd.h), which overrides it, and calls it on the others. */
#include "micro_relay/dense.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/simd.h"

#if defined(__GNUC__) || defined(__clang__)
#define MR_CONV_NOINLINE_DENSE __attribute__((noinline))
#else
#define MR_CONV_NOINLINE_DENSE
#endif

/* Dot product of int8 vectors: the inner loop once the zero points are folded into the bias. */
static int32_t dot_s8(const int8_t *a, const int8_t *b, int32_t n)
{
    int32_t acc = 0, d;
    for (d = 0; d < n; ++d) {
        acc += (int32_t)a[d] * b[d];
    }
    return acc;
}

/* The int8 requantization of unit channel c, with its zero point: TFLite Micro's, or one rounding. */
static int32_t dense_requant_s8(const mr_dense_q_params *p, int32_t acc, int32_t c)
{
    return (p->single_round ? mr_requant_single(acc, p->mult[c], p->shift[c]) : mr_mbqm(acc, p->mult[c], p->shift[c])) +
           p->out_zp;
}

int mr_dense_s8_portable(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                         int8_t *out)
{
    int32_t r, o, d;
    if (p->folded_bias) {
        for (r = 0; r < p->rows; ++r) {
            const int8_t *x = in + r * p->depth;
            for (o = 0; o < p->units; ++o) {
                const int32_t c = p->per_channel ? o : 0;
                int32_t acc = p->folded_bias[o] + dot_s8(w + o * p->depth, x, p->depth);
                acc = dense_requant_s8(p, acc, c);
                out[r * p->units + o] = (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
            }
        }
        return MR_OK;
    }
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
            acc = dense_requant_s8(p, acc, c);
            out[r * p->units + o] = (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
        }
    }
    return MR_OK;
}

#if !MR_DSP_ASM
int mr_dense_s8(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out)
{
    return mr_dense_s8_portable(p, in, w, bias, out);
}
#else
/*
 * DSP cores. With the bias folded (the inner loop a plain dot product) the loop structure is: row > block of 4
 * units (a last block of fewer than 4 is the block of the last 4 units, which repeats some) > 4 input values:
 * the input word is sign-extended once (SXTB16 even/odd bytes), then each unit's weight word is extended and
 * takes two SMLADs, 23 instructions per 16 MACs; the loop is unrolled twice (an odd count of 4-value groups
 * enters at the second half). Units 1 and 3 are read at [w0 + depth] and [w2 + depth]. A layer whose
 * mr_requant_zp constants the compiler made (p->requant: per-tensor, constants it covers, int8's clamp, depth a
 * multiple of 4) is requantized in the same routine (mr_requant_zp_apply's five instructions and SSAT, the
 * output zero point folded in) and stored a word per block, every block of a row in one call. Other layers take
 * the routine one block at a time for its raw accumulators and finish each unit in C (dense_unit: the last
 * depth % 4 values, mr_requant_raw, the clamp). Fewer than 4 units, fewer than 4 values per row and an unfolded
 * bias go wholly through dense_unit.
 */

/* A row of the input, the weights and the zero points dense_unit subtracts (0 and 0 when the bias is folded). */
typedef struct {
    const int8_t *x;
    int32_t depth;
    const mr_dense_q_params *p;
    const int8_t *w;
    int32_t x_zp, w_zp;
} dense_row;

/* Unit o of the row the long way: acc plus the products of values [from, depth), requantized (mr_requant_raw)
 * and clamped. */
static int8_t dense_unit(const dense_row *row, int32_t o, int32_t from, int32_t acc)
{
    const mr_dense_q_params *p = row->p;
    const int8_t *w = row->w + o * row->depth;
    const int32_t c = p->per_channel ? o : 0;
    int32_t d;
    for (d = from; d < row->depth; ++d) {
        acc += (row->x[d] - row->x_zp) * (w[d] - row->w_zp);
    }
    acc = mr_requant_node(acc, p->mult[c], p->shift[c], p->single_round) + p->out_zp;
    return (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
}

/* What dense_blocks reads, at the offsets its assembly uses; dense_unit reads the row. */
typedef struct {
    dense_row row;           /* 0: the input row, 4: depth */
    const int8_t *w;         /* 24: the block's first unit's weights */
    const int32_t *bias;     /* 28: the block's folded biases */
    int8_t *out;             /* 32: the block's first output */
    int32_t blocks;          /* 36: blocks left */
    const int32_t *q;        /* 40: the layer's mr_requant_zp, or NULL: one block, raw accumulators into acc */
    int32_t *acc;            /* 44 */
} dense_job;
/* The offsets dense_blocks reads (LDRD pairs: x/depth, w/bias, out/blocks, q/acc). */
MR_CHECK_OFFSET(dense_job, x, row.x, 0);
MR_CHECK_OFFSET(dense_job, depth, row.depth, 4);
MR_CHECK_OFFSET(dense_job, w, w, 24);
MR_CHECK_OFFSET(dense_job, bias, bias, 28);
MR_CHECK_OFFSET(dense_job, out, out, 32);
MR_CHECK_OFFSET(dense_job, blocks, blocks, 36);
MR_CHECK_OFFSET(dense_job, q, q, 40);
MR_CHECK_OFFSET(dense_job, acc, acc, 44);

static MR_CONV_NOINLINE_DENSE void dense_blocks(dense_job *job)
{
    int32_t a0, a1, a2, a3, n, d, xe, xo, t, u;
    const int8_t *x, *w0, *w2;
#define MR_QUAD                                                                                                \
    "ldr %[xe], [%[x]], #4\n\t"                                                                                \
    "sxtb16 %[xo], %[xe], ror #8\n\t"                                                                          \
    "sxtb16 %[xe], %[xe]\n\t"                                                                                  \
    "ldr %[t], [%[w0], %[d]]\n\t"                                                                              \
    "sxtb16 %[u], %[t], ror #8\n\t"                                                                            \
    "sxtb16 %[t], %[t]\n\t"                                                                                    \
    "smlad %[a1], %[xe], %[t], %[a1]\n\t"                                                                      \
    "smlad %[a1], %[xo], %[u], %[a1]\n\t"                                                                      \
    "ldr %[t], [%[w0]], #4\n\t"                                                                                \
    "sxtb16 %[u], %[t], ror #8\n\t"                                                                            \
    "sxtb16 %[t], %[t]\n\t"                                                                                    \
    "smlad %[a0], %[xe], %[t], %[a0]\n\t"                                                                      \
    "smlad %[a0], %[xo], %[u], %[a0]\n\t"                                                                      \
    "ldr %[t], [%[w2], %[d]]\n\t"                                                                              \
    "sxtb16 %[u], %[t], ror #8\n\t"                                                                            \
    "sxtb16 %[t], %[t]\n\t"                                                                                    \
    "smlad %[a3], %[xe], %[t], %[a3]\n\t"                                                                      \
    "smlad %[a3], %[xo], %[u], %[a3]\n\t"                                                                      \
    "ldr %[t], [%[w2]], #4\n\t"                                                                                \
    "sxtb16 %[u], %[t], ror #8\n\t"                                                                            \
    "sxtb16 %[t], %[t]\n\t"                                                                                    \
    "smlad %[a2], %[xe], %[t], %[a2]\n\t"                                                                      \
    "smlad %[a2], %[xo], %[u], %[a2]\n\t"
    /* mr_requant_zp_apply: hi in xe, mult in xo, k in u */
#define MR_REQ(a) MR_ASM_REQUANT_ZP(a, "t", "w2", "xe", "xo", "u")
    __asm__ volatile("0:\n\t"
                     "ldrd %[w0], %[t], [%[c], #24]\n\t"
                     "ldrd %[a0], %[a1], [%[t]]\n\t"
                     "ldrd %[a2], %[a3], [%[t], #8]\n\t"
                     "add %[t], %[t], #16\n\t"
                     "ldrd %[x], %[d], [%[c]]\n\t"
                     "add %[u], %[w0], %[d], lsl #2\n\t"
                     "strd %[u], %[t], [%[c], #24]\n\t"
                     "add %[w2], %[w0], %[d], lsl #1\n\t"
                     "add %[n], %[d], #4\n\t"
                     "lsr %[n], %[n], #3\n\t" /* passes: ceil(quads / 2) */
                     "tst %[d], #4\n\t"       /* an odd count of quads starts at the second half */
                     "bne 2f\n\t"
                     "1:\n\t"
                     MR_QUAD
                     "2:\n\t"
                     MR_QUAD
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b\n\t"
                     "ldrd %[t], %[x], [%[c], #40]\n\t"
                     "cbnz %[t], 3f\n\t"
                     "strd %[a0], %[a1], [%[x]]\n\t"
                     "strd %[a2], %[a3], [%[x], #8]\n\t"
                     "b 4f\n\t"
                     "3:\n\t"
                     "ldrd %[xe], %[xo], [%[t]]\n\t"
                     "ldr %[u], [%[t], #8]\n\t"
                     MR_REQ("a0") MR_REQ("a1") MR_REQ("a2") MR_REQ("a3")
                     "bfi %[a0], %[a1], #8, #8\n\t"
                     "bfi %[a0], %[a2], #16, #8\n\t"
                     "bfi %[a0], %[a3], #24, #8\n\t"
                     "ldrd %[x], %[n], [%[c], #32]\n\t"
                     "str %[a0], [%[x]], #4\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "strd %[x], %[n], [%[c], #32]\n\t"
                     "bne 0b\n\t"
                     "4:"
                     : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [x] "=&r"(x), [w0] "=&r"(w0),
                       [w2] "=&r"(w2), [n] "=&r"(n), [d] "=&r"(d), [xe] "=&r"(xe), [xo] "=&r"(xo), [t] "=&l"(t),
                       [u] "=&r"(u), [c] "+r"(job)
                     :
                     : "cc", "memory");
#undef MR_QUAD
#undef MR_REQ
}

int mr_dense_s8(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out)
{
    const int32_t depth = p->depth, units = p->units, quads = depth >> 2, *fb = p->folded_bias;
    const int32_t *const b = fb ? fb : bias;
    int32_t acc[4], r, o, j, n;
    dense_job job;
    job.row.depth = depth;
    job.row.p = p;
    job.row.w = w;
    job.row.x_zp = fb ? 0 : p->in_zp;
    job.row.w_zp = fb ? 0 : p->w_zp;
    job.q = p->requant;
    job.acc = acc;
    for (r = 0; r < p->rows; ++r) {
        int8_t *y = out + r * units;
        job.row.x = in + r * depth;
        for (o = 0; o < units; o += n) {
            if (fb == NULL || units < 4 || quads == 0) {
                y[o] = dense_unit(&job.row, o, 0, b ? b[o] : 0);
                n = 1;
                continue;
            }
            if (o + 4 > units) { /* the last units: the block of the last four */
                o = units - 4;
            }
            n = job.q ? (units - o) & ~3 : 4;
            job.w = w + o * depth;
            job.bias = fb + o;
            job.out = y + o;
            job.blocks = n >> 2;
            dense_blocks(&job);
            for (j = 0; !job.q && j < 4; ++j) {
                y[o + j] = dense_unit(&job.row, o + j, quads << 2, acc[j]);
            }
        }
    }
    return MR_OK;
}
#endif

int mr_dense_s16(const mr_dense_q_params *p, const int16_t *in, const int8_t *w, const int32_t *bias, int16_t *out)
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
    return MR_OK;
}

int mr_dense_s16_wide(const mr_dense_q_params *p, const int16_t *in, const int8_t *w, const int64_t *bias,
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
    return MR_OK;
}

int mr_dense_f32(const mr_dense_f32_params *p, const float *in, const float *w, const float *bias, float *out)
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
    return MR_OK;
}
