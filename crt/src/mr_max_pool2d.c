/* nn.max_pool2d kernels, bit-exact with TFLite Micro's reference MAX_POOL_2D (TFLM_ARITHMETIC.md sec. 4).
 * The running maximum starts at the type's lowest value and uses std::max's comparison (m < v ? v : m),
 * so in float a NaN tap never replaces it. */
#include <float.h>

#include "micro_relay/max_pool2d.h"

#define MR_MAX_POOL(T, LOWEST)                                                                               \
    int32_t b, oy, ox, c, y, x;                                                                              \
    for (b = 0; b < p->batches; ++b) {                                                                       \
        for (oy = 0; oy < p->out_h; ++oy) {                                                                  \
            const int32_t y_org = oy * p->stride_h - p->pad_top;                                             \
            const int32_t y0 = MR_MAX(0, y_org), y1 = MR_MIN(p->in_h, y_org + p->filter_h);                  \
            for (ox = 0; ox < p->out_w; ++ox) {                                                              \
                const int32_t x_org = ox * p->stride_w - p->pad_left;                                        \
                const int32_t x0 = MR_MAX(0, x_org), x1 = MR_MIN(p->in_w, x_org + p->filter_w);              \
                T *dst = out + ((b * p->out_h + oy) * p->out_w + ox) * p->channels;                          \
                for (c = 0; c < p->channels; ++c) {                                                          \
                    T best = (LOWEST);                                                                       \
                    for (y = y0; y < y1; ++y) {                                                              \
                        const T *row = in + ((b * p->in_h + y) * p->in_w) * p->channels + c;                 \
                        for (x = x0; x < x1; ++x) {                                                          \
                            best = MR_MAX(best, row[x * p->channels]);                                       \
                        }                                                                                    \
                    }                                                                                        \
                    dst[c] = (T)MR_CLAMP(best, p->act_min, p->act_max);                                      \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }

int mr_max_pool2d_s8(const mr_max_pool2d_q_params *p, const int8_t *in, int8_t *out)
{
    MR_MAX_POOL(int8_t, INT8_MIN)
    return MR_OK;
}

int mr_max_pool2d_s16(const mr_max_pool2d_q_params *p, const int16_t *in, int16_t *out)
{
    MR_MAX_POOL(int16_t, INT16_MIN)
    return MR_OK;
}

int mr_max_pool2d_f32(const mr_max_pool2d_f32_params *p, const float *in, float *out)
{
    MR_MAX_POOL(float, -FLT_MAX)
    return MR_OK;
}
