/* SUM, REDUCE_PROD (float) and REDUCE_MAX / REDUCE_MIN, as TFLite's ReduceGeneric computes them: every
 * output starts at an initial value and folds in its elements in row-major order of the reduced axes.
 * max/min keep the current value unless the new one compares greater/less, so NaNs are skipped and a float
 * max starts at -FLT_MAX (std::numeric_limits<float>::lowest()), not -inf. */
#include <float.h>

#include "micro_relay/reduce.h"

/* Input offset of the first element folded into output `index`: its kept-axis coordinates times steps. */
static int32_t mr_reduce_base(const mr_reduce_params *p, int32_t index)
{
    int32_t k, offset = 0;
    for (k = MR_REDUCE_MAX_DIMS - 1; k >= 0; --k) {
        offset += (index % p->outer_dims[k]) * p->outer_steps[k];
        index /= p->outer_dims[k];
    }
    return offset;
}

static int32_t mr_reduce_outputs(const mr_reduce_params *p)
{
    int32_t k, n = 1;
    for (k = 0; k < MR_REDUCE_MAX_DIMS; ++k) {
        n *= p->outer_dims[k];
    }
    return n;
}

/* out[o] = fold of STEP(acc, v) over output o's reduced box from INIT, the last reduced axis fastest. */
#define MR_REDUCE(T, INIT, STEP)                                                                             \
    const int32_t outputs = mr_reduce_outputs(p);                                                            \
    int32_t o, r0, r1, r2, r3;                                                                               \
    for (o = 0; o < outputs; ++o) {                                                                          \
        const T *x = in + mr_reduce_base(p, o);                                                              \
        T acc = (INIT);                                                                                      \
        for (r0 = 0; r0 < p->inner_dims[0]; ++r0) {                                                          \
            for (r1 = 0; r1 < p->inner_dims[1]; ++r1) {                                                      \
                for (r2 = 0; r2 < p->inner_dims[2]; ++r2) {                                                  \
                    const T *row = x + r0 * p->inner_steps[0] + r1 * p->inner_steps[1] + r2 * p->inner_steps[2]; \
                    for (r3 = 0; r3 < p->inner_dims[3]; ++r3) {                                              \
                        const T v = row[r3 * p->inner_steps[3]];                                             \
                        acc = STEP;                                                                          \
                    }                                                                                        \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
        out[o] = acc;                                                                                        \
    }                                                                                                        \
    return MR_OK;

int mr_reduce_sum_f32(const mr_reduce_params *p, const float *in, float *out)
{
    MR_REDUCE(float, 0.0f, v + acc)
}

int mr_reduce_prod_f32(const mr_reduce_params *p, const float *in, float *out)
{
    MR_REDUCE(float, 1.0f, v * acc)
}

int mr_reduce_max_s8(const mr_reduce_params *p, const int8_t *in, int8_t *out)
{
    MR_REDUCE(int8_t, INT8_MIN, v > acc ? v : acc)
}

int mr_reduce_max_s16(const mr_reduce_params *p, const int16_t *in, int16_t *out)
{
    MR_REDUCE(int16_t, INT16_MIN, v > acc ? v : acc)
}

int mr_reduce_max_f32(const mr_reduce_params *p, const float *in, float *out)
{
    MR_REDUCE(float, -FLT_MAX, v > acc ? v : acc)
}

int mr_reduce_min_s8(const mr_reduce_params *p, const int8_t *in, int8_t *out)
{
    MR_REDUCE(int8_t, INT8_MAX, v < acc ? v : acc)
}

int mr_reduce_min_s16(const mr_reduce_params *p, const int16_t *in, int16_t *out)
{
    MR_REDUCE(int16_t, INT16_MAX, v < acc ? v : acc)
}

int mr_reduce_min_f32(const mr_reduce_params *p, const float *in, float *out)
{
    MR_REDUCE(float, FLT_MAX, v < acc ? v : acc)
}
