/* nn.avg_pool2d kernels, bit-exact with TFLite Micro's reference AVERAGE_POOL_2D (TFLM_ARITHMETIC.md sec. 4, 8).
 * The window is clipped to the image and only in-image taps are counted; integer results round the
 * quotient half away from zero with C's truncating division. */
#include "micro_relay/avg_pool2d.h"

/* One integer body for int8 and int16: the element type is the only difference. */
#define MR_AVG_POOL_Q(T)                                                                                     \
    int32_t b, oy, ox, c, y, x;                                                                              \
    for (b = 0; b < p->batches; ++b) {                                                                       \
        for (oy = 0; oy < p->out_h; ++oy) {                                                                  \
            const int32_t y_org = oy * p->stride_h - p->pad_top;                                             \
            const int32_t y0 = MR_MAX(0, y_org), y1 = MR_MIN(p->in_h, y_org + p->filter_h);                  \
            for (ox = 0; ox < p->out_w; ++ox) {                                                              \
                const int32_t x_org = ox * p->stride_w - p->pad_left;                                        \
                const int32_t x0 = MR_MAX(0, x_org), x1 = MR_MIN(p->in_w, x_org + p->filter_w);              \
                const int32_t count = (y1 - y0) * (x1 - x0);                                                 \
                T *dst = out + ((b * p->out_h + oy) * p->out_w + ox) * p->channels;                          \
                for (c = 0; c < p->channels; ++c) {                                                          \
                    int32_t acc = 0;                                                                         \
                    for (y = y0; y < y1; ++y) {                                                              \
                        const T *row = in + ((b * p->in_h + y) * p->in_w) * p->channels + c;                 \
                        for (x = x0; x < x1; ++x) {                                                          \
                            acc += row[x * p->channels];                                                     \
                        }                                                                                    \
                    }                                                                                        \
                    acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;                   \
                    dst[c] = (T)MR_CLAMP(acc, p->act_min, p->act_max);                                       \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }

void mr_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out)
{
    MR_AVG_POOL_Q(int8_t)
}

void mr_avg_pool2d_s16(const mr_avg_pool2d_q_params *p, const int16_t *in, int16_t *out)
{
    MR_AVG_POOL_Q(int16_t)
}

void mr_avg_pool2d_f32(const mr_avg_pool2d_f32_params *p, const float *in, float *out)
{
    int32_t b, oy, ox, c, y, x;
    for (b = 0; b < p->batches; ++b) {
        for (oy = 0; oy < p->out_h; ++oy) {
            const int32_t y_org = oy * p->stride_h - p->pad_top;
            const int32_t y0 = MR_MAX(0, y_org), y1 = MR_MIN(p->in_h, y_org + p->filter_h);
            for (ox = 0; ox < p->out_w; ++ox) {
                const int32_t x_org = ox * p->stride_w - p->pad_left;
                const int32_t x0 = MR_MAX(0, x_org), x1 = MR_MIN(p->in_w, x_org + p->filter_w);
                const float count = (float)((y1 - y0) * (x1 - x0));
                float *dst = out + ((b * p->out_h + oy) * p->out_w + ox) * p->channels;
                for (c = 0; c < p->channels; ++c) {
                    float total = 0.0f;
                    for (y = y0; y < y1; ++y) {
                        const float *row = in + ((b * p->in_h + y) * p->in_w) * p->channels + c;
                        for (x = x0; x < x1; ++x) {
                            total += row[x * p->channels];
                        }
                    }
                    total = total / count;
                    dst[c] = MR_CLAMP(total, p->act_min, p->act_max);
                }
            }
        }
    }
}
