/* nn.svdf kernels, bit-exact with TFLite Micro's reference SVDF (svdf_common.cc): the state rows shift left and
 * take the rescaled feature dot, then each unit is bias + its filters' time dots. The integer time dots and unit
 * sums wrap modulo 2^32 as TFLite Micro's int32 arithmetic does (here without undefined behaviour); the feature
 * dot cannot overflow (the compiler bounds input_size). No scratch: each unit's filters are summed as they are
 * computed, in TFLite Micro's order. */
#include "micro_relay/svdf.h"
#include "micro_relay/fixedpoint.h"

/* One state row: shift left by one (new_row may be row: each value is read before it is overwritten). */
#define MR_SVDF_SHIFT(T, row, new_row, memory)                                                                 \
    do {                                                                                                       \
        int32_t j_;                                                                                            \
        for (j_ = 0; j_ + 1 < (memory); ++j_) {                                                                \
            (new_row)[j_] = (row)[j_ + 1];                                                                     \
        }                                                                                                      \
    } while (0)

#define MR_SVDF_Q_BODY(T)                                                                                      \
    int32_t b, u, r, c, j;                                                                                     \
    for (b = 0; b < p->batch; ++b) {                                                                           \
        const int8_t *x = in + b * p->input_size;                                                              \
        for (u = 0; u < p->units; ++u) {                                                                       \
            uint32_t acc = (uint32_t)bias[u];                                                      \
            for (r = 0; r < p->rank; ++r) {                                                                    \
                const int32_t f = u * p->rank + r;                                                             \
                const int32_t offset = (b * p->filters + f) * p->memory;                                       \
                const int8_t *w = wf + f * p->input_size;                                                      \
                const T *wt_row = wt + f * p->memory;                                                          \
                T *row = new_state + offset;                                                                   \
                int32_t dot = 0, value;                                                                        \
                uint32_t time = 0u;                                                                            \
                MR_SVDF_SHIFT(T, state + offset, row, p->memory);                                              \
                for (c = 0; c < p->input_size; ++c) {                                                          \
                    dot += (int32_t)w[c] * ((int32_t)x[c] - p->in_zp);                                         \
                }                                                                                              \
                value = mr_mbqm(dot, p->mult1, p->shift1) + p->state_zp;                                       \
                row[p->memory - 1] = (T)MR_CLAMP(value, p->state_min, p->state_max);                           \
                for (j = 0; j < p->memory; ++j) {                                                              \
                    time += (uint32_t)((int64_t)wt_row[j] * ((int64_t)row[j] - p->state_zp));                  \
                }                                                                                              \
                acc += time;                                                                                   \
            }                                                                                                  \
            {                                                                                                  \
                const int32_t scaled = mr_mbqm((int32_t)acc, p->mult2, p->shift2) + p->out_zp;                 \
                out[b * p->units + u] = (int8_t)MR_CLAMP(scaled, -128, 127);                                   \
            }                                                                                                  \
        }                                                                                                      \
    }                                                                                                          \
    return MR_OK

int mr_svdf_s8_s16(const mr_svdf_q_params *p, const int8_t *in, const int8_t *wf, const int16_t *wt,
                   const int32_t *bias, const int16_t *state, int16_t *new_state, int8_t *out)
{
    MR_SVDF_Q_BODY(int16_t);
}

int mr_svdf_s8_s8(const mr_svdf_q_params *p, const int8_t *in, const int8_t *wf, const int8_t *wt,
                  const int32_t *bias, const int8_t *state, int8_t *new_state, int8_t *out)
{
    MR_SVDF_Q_BODY(int8_t);
}

int mr_svdf_f32(const mr_svdf_f32_params *p, const float *in, const float *wf, const float *wt, const float *bias,
                const float *state, float *new_state, float *out)
{
    int32_t b, u, r, c, j;
    for (b = 0; b < p->batch; ++b) {
        const float *x = in + b * p->input_size;
        for (u = 0; u < p->units; ++u) {
            float acc = bias[u];
            for (r = 0; r < p->rank; ++r) {
                const int32_t f = u * p->rank + r;
                const int32_t offset = (b * p->filters + f) * p->memory;
                const float *w = wf + f * p->input_size;
                const float *wt_row = wt + f * p->memory;
                float *row = new_state + offset;
                float dot = 0.0f, time = 0.0f;
                MR_SVDF_SHIFT(float, state + offset, row, p->memory);
                for (c = 0; c < p->input_size; ++c) {
                    dot += w[c] * x[c];
                }
                row[p->memory - 1] = dot;
                for (j = 0; j < p->memory; ++j) {
                    time += wt_row[j] * row[j];
                }
                acc += time;
            }
            out[b * p->units + u] = MR_CLAMP(acc, p->act_min, p->act_max);
        }
    }
    return MR_OK;
}
