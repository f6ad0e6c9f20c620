/* mean kernels, bit-exact with TFLite Micro's MEAN (TFLM_ARITHMETIC.md sec. 7 and 8).
 * Integer: int32 sum of raw q, minus in_zp * count (in 64 bits, truncated to 32), one MultiplyByQuantized-
 * Multiplier with the count folded into the multiplier at compile time, + out_zp, clamp to the type.
 * Float: a float sum starting at 0 in input (row-major) order over the reduced axes, / (float)count. */
#include "micro_relay/mean.h"
#include "micro_relay/fixedpoint.h"

/* Input offset of the first element averaged into output `index`: its kept-axis coordinates times steps. */
static int32_t mr_mean_base(const int32_t *dims, const int32_t *steps, int32_t index)
{
    int32_t k, offset = 0;
    for (k = MR_MEAN_MAX_DIMS - 1; k >= 0; --k) {
        offset += (index % dims[k]) * steps[k];
        index /= dims[k];
    }
    return offset;
}

static int32_t mr_mean_outputs(const int32_t *dims)
{
    int32_t k, n = 1;
    for (k = 0; k < MR_MEAN_MAX_DIMS; ++k) {
        n *= dims[k];
    }
    return n;
}

/* ACC += every element x[...] of one output's reduced box, the last reduced axis fastest. */
#define MR_MEAN_SUM(ACC, x)                                                                                  \
    for (r0 = 0; r0 < p->inner_dims[0]; ++r0) {                                                              \
        for (r1 = 0; r1 < p->inner_dims[1]; ++r1) {                                                          \
            for (r2 = 0; r2 < p->inner_dims[2]; ++r2) {                                                      \
                const int32_t at = r0 * p->inner_steps[0] + r1 * p->inner_steps[1] + r2 * p->inner_steps[2]; \
                for (r3 = 0; r3 < p->inner_dims[3]; ++r3) {                                                  \
                    ACC += (x)[at + r3 * p->inner_steps[3]];                                                 \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }

/* One integer body for int8 and int16. */
#define MR_MEAN_Q(T, LO, HI)                                                                                 \
    const int32_t outputs = mr_mean_outputs(p->outer_dims);                                                  \
    int32_t o, r0, r1, r2, r3;                                                                               \
    for (o = 0; o < outputs; ++o) {                                                                          \
        const T *x = in + mr_mean_base(p->outer_dims, p->outer_steps, o);                                    \
        int32_t sum = 0;                                                                                     \
        int32_t q;                                                                                           \
        MR_MEAN_SUM(sum, x)                                                                                  \
        q = (int32_t)((int64_t)sum - (int64_t)p->in_zp * p->count);                                          \
        q = mr_mbqm(q, p->mult, p->shift) + p->out_zp;                                                       \
        out[o] = (T)MR_CLAMP(q, (LO), (HI));                                                                 \
    }

int mr_mean_s8(const mr_mean_q_params *p, const int8_t *in, int8_t *out)
{
    MR_MEAN_Q(int8_t, INT8_MIN, INT8_MAX)
    return MR_OK;
}

int mr_mean_s16(const mr_mean_q_params *p, const int16_t *in, int16_t *out)
{
    MR_MEAN_Q(int16_t, INT16_MIN, INT16_MAX)
    return MR_OK;
}

int mr_mean_f32(const mr_mean_f32_params *p, const float *in, float *out)
{
    const int32_t outputs = mr_mean_outputs(p->outer_dims);
    const float count = (float)p->count;
    int32_t o, r0, r1, r2, r3;
    for (o = 0; o < outputs; ++o) {
        const float *x = in + mr_mean_base(p->outer_dims, p->outer_steps, o);
        float sum = 0.0f;
        MR_MEAN_SUM(sum, x)
        out[o] = sum / count;
    }
    return MR_OK;
}
