/* batch_matmul kernels, bit-exact with TFLite Micro's BATCH_MATMUL (R/batch_matmul.h): k ascending. */
#include "micro_relay/batch_matmul.h"
#include "micro_relay/fixedpoint.h"

/* The first element of the next batch's matrices: an odometer over the batch dims. */
static void mr_batch_next(const mr_batch_matmul_shape *s, int32_t *index, int32_t *lhs, int32_t *rhs)
{
    int32_t d;
    for (d = s->batch_rank - 1; d >= 0; --d) {
        *lhs += s->lhs_batch_strides[d];
        *rhs += s->rhs_batch_strides[d];
        if (++index[d] < s->batch_dims[d]) {
            return;
        }
        *lhs -= s->lhs_batch_strides[d] * s->batch_dims[d];
        *rhs -= s->rhs_batch_strides[d] * s->batch_dims[d];
        index[d] = 0;
    }
}

static int32_t mr_batch_count(const mr_batch_matmul_shape *s)
{
    int32_t n = 1, d;
    for (d = 0; d < s->batch_rank; ++d) {
        n *= s->batch_dims[d];
    }
    return n;
}

/*
 * Runs BODY for every output element with `l` and `r` pointing at lhs[i, 0] and rhs[0, j] of its batch and
 * `o` its output index; BODY walks k with the steps.
 */
#define MR_BATCH_MATMUL_LOOP(s, BODY)                                                              \
    do {                                                                                           \
        int32_t mr_index[MR_BATCH_MATMUL_MAX_BATCH] = {0};                                         \
        int32_t mr_lb = 0, mr_rb = 0, mr_b, i, j, o = 0;                                           \
        const int32_t mr_batches = mr_batch_count(s);                                              \
        for (mr_b = 0; mr_b < mr_batches; ++mr_b) {                                                \
            for (i = 0; i < (s)->rows; ++i) {                                                      \
                for (j = 0; j < (s)->cols; ++j, ++o) {                                             \
                    const int32_t l = mr_lb + i * (s)->lhs_row_step;                               \
                    const int32_t r = mr_rb + j * (s)->rhs_col_step;                               \
                    BODY;                                                                          \
                }                                                                                  \
            }                                                                                      \
            mr_batch_next((s), mr_index, &mr_lb, &mr_rb);                                          \
        }                                                                                          \
    } while (0)

int mr_batch_matmul_f32(const mr_batch_matmul_f32_params *p, const float *lhs, const float *rhs, float *out)
{
    const mr_batch_matmul_shape *s = &p->s;
    MR_BATCH_MATMUL_LOOP(s, {
        float total = 0.0f;
        int32_t k;
        for (k = 0; k < s->depth; ++k) {
            total += lhs[l + k * s->lhs_k_step] * rhs[r + k * s->rhs_k_step];
        }
        out[o] = total;
    });
    return MR_OK;
}

/* int8: |products| <= 255^2 and Prepare bounds depth, so the int32 total cannot overflow. */
int mr_batch_matmul_s8(const mr_batch_matmul_q_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out)
{
    const mr_batch_matmul_shape *s = &p->s;
    MR_BATCH_MATMUL_LOOP(s, {
        int32_t total = 0;
        int32_t k;
        int32_t v;
        for (k = 0; k < s->depth; ++k) {
            total += (lhs[l + k * s->lhs_k_step] + p->lhs_offset) * (rhs[r + k * s->rhs_k_step] + p->rhs_offset);
        }
        v = (p->single_round ? mr_requant_single(total, p->mult, p->shift) : mr_mbqm(total, p->mult, p->shift)) +
            p->out_offset;
        out[o] = (int8_t)MR_CLAMP(v, -128, 127);
    });
    return MR_OK;
}

/* int16: zero points 0, an int64 total and the 64-bit requantization. */
int mr_batch_matmul_s16(const mr_batch_matmul_q_params *p, const int16_t *lhs, const int16_t *rhs, int16_t *out)
{
    const mr_batch_matmul_shape *s = &p->s;
    MR_BATCH_MATMUL_LOOP(s, {
        int64_t total = 0;
        int32_t k;
        int32_t v;
        for (k = 0; k < s->depth; ++k) {
            total += (int64_t)lhs[l + k * s->lhs_k_step] * rhs[r + k * s->rhs_k_step];
        }
        v = mr_mbqm64(total, p->mult, p->shift);
        out[o] = (int16_t)MR_CLAMP(v, -32768, 32767);
    });
    return MR_OK;
}
