/* nn.avg_pool2d kernels, bit-exact with TFLite Micro's reference AVERAGE_POOL_2D (TFLM_ARITHMETIC.md sec. 4, 8).
 * The window is clipped to the image and only in-image taps are counted; integer results round the
 * quotient half away from zero with C's truncating division. */
#include "micro_relay/avg_pool2d.h"
#include "micro_relay/simd.h"

#if MR_DSP
/*
 * int8 on DSP cores, four channels at a time: SXTAB16 adds a word's even and odd bytes into 16-bit lanes, exact
 * while the window has at most 255 taps (|sum| <= 255 * 128 < 2^15); 3 instructions per 4 values instead of
 * about 11 per value. Channels [c, c + 4) of the window whose first tap is at `first`; sums in channel order.
 */
static void sum4_s8(const int8_t *first, int32_t row_step, int32_t channels, int32_t rows, int32_t cols,
                    int32_t sums[4])
{
    int32_t even = 0, odd = 0, y, x;
    for (y = 0; y < rows; ++y, first += row_step) {
        const int8_t *px = first;
        for (x = 0; x < cols; ++x, px += channels) {
            const uint32_t v = mr_load_s8x4(px);
            even = mr_even_add(even, v);
            odd = mr_odd_add(odd, v);
        }
    }
    sums[0] = (int16_t)even;
    sums[1] = (int16_t)odd;
    sums[2] = even >> 16;
    sums[3] = odd >> 16;
}

/* The blocks of four channels of one int8 output pixel (windows of at most 255 taps); returns the first channel
 * left to the scalar loop. */
static int32_t avg_blocks_s8(const mr_avg_pool2d_q_params *p, const int8_t *first, int32_t rows, int32_t cols,
                             int8_t *dst)
{
    const int32_t count = rows * cols;
    int32_t c = 0, j, sums[4];
    if (count > 255) {
        return 0;
    }
    for (; c + 4 <= p->channels; c += 4) {
        sum4_s8(first + c, p->in_w * p->channels, p->channels, rows, cols, sums);
        for (j = 0; j < 4; ++j) {
            const int32_t acc = sums[j] > 0 ? (sums[j] + count / 2) / count : (sums[j] - count / 2) / count;
            dst[c + j] = (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
        }
    }
    return c;
}
#endif

/* One integer body for int8 and int16: the element type is the only difference. MR_AVG_FIRST_CHANNEL, defined
 * before each use, is the first channel the scalar loop takes (the others done in blocks). */
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
                for (c = MR_AVG_FIRST_CHANNEL; c < p->channels; ++c) {                                       \
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

int mr_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out)
{
#if MR_DSP
#define MR_AVG_FIRST_CHANNEL \
    avg_blocks_s8(p, in + ((b * p->in_h + y0) * p->in_w + x0) * p->channels, y1 - y0, x1 - x0, dst)
#else
#define MR_AVG_FIRST_CHANNEL 0
#endif
    MR_AVG_POOL_Q(int8_t)
#undef MR_AVG_FIRST_CHANNEL
    return MR_OK;
}

int mr_avg_pool2d_s16(const mr_avg_pool2d_q_params *p, const int16_t *in, int16_t *out)
{
#define MR_AVG_FIRST_CHANNEL 0
    MR_AVG_POOL_Q(int16_t)
#undef MR_AVG_FIRST_CHANNEL
    return MR_OK;
}

int mr_avg_pool2d_f32(const mr_avg_pool2d_f32_params *p, const float *in, float *out)
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
    return MR_OK;
}
