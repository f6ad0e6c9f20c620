/* RESIZE_NEAREST_NEIGHBOR (a raw copy of one input pixel per output pixel) and RESIZE_BILINEAR, bit-exact
 * with TFLite Micro given the compiler's tables (resize2d.h). Integer bilinear is TFLite's
 * ResizeBilinearInteger: four int64 products with 10-bit weights, (sum +- 2^19) / 2^20, halves away from zero.
 * Float bilinear is the reference float blend, in its order of operations. */
#include <string.h>

#include "micro_relay/resize2d.h"

int mr_resize_nearest(const mr_resize_nearest_params *p, const void *in, void *out)
{
    const size_t pixel = (size_t)p->channels * (size_t)p->elem_size;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    int32_t b, y, x;
    for (b = 0; b < p->batches; ++b) {
        const uint8_t *image = src + (size_t)b * (size_t)p->in_h * (size_t)p->in_w * pixel;
        for (y = 0; y < p->out_h; ++y) {
            const uint8_t *row = image + (size_t)p->rows[y] * (size_t)p->in_w * pixel;
            for (x = 0; x < p->out_w; ++x) {
                memcpy(dst, row + (size_t)p->cols[x] * pixel, pixel);
                dst += pixel;
            }
        }
    }
    return MR_OK;
}

#define MR_BILINEAR_Q(T)                                                                                     \
    int32_t b, y, x, c;                                                                                      \
    for (b = 0; b < p->batches; ++b) {                                                                       \
        const T *image = in + b * p->in_h * p->in_w * p->channels;                                           \
        for (y = 0; y < p->out_h; ++y) {                                                                     \
            const T *lo_row = image + p->row_lo[y] * p->in_w * p->channels;                                  \
            const T *hi_row = image + p->row_hi[y] * p->in_w * p->channels;                                  \
            const int64_t wy1 = p->row_weight[y], wy0 = 1024 - wy1;                                          \
            for (x = 0; x < p->out_w; ++x) {                                                                 \
                const int32_t x0 = p->col_lo[x] * p->channels, x1 = p->col_hi[x] * p->channels;              \
                const int64_t wx1 = p->col_weight[x], wx0 = 1024 - wx1;                                      \
                for (c = 0; c < p->channels; ++c) {                                                          \
                    const int64_t sum = lo_row[x0 + c] * wy0 * wx0 + hi_row[x0 + c] * wy1 * wx0 +            \
                                        lo_row[x1 + c] * wy0 * wx1 + hi_row[x1 + c] * wy1 * wx1;             \
                    const int64_t round = sum > 0 ? ((int64_t)1 << 19) : -((int64_t)1 << 19);                \
                    *out++ = (T)((sum + round) / ((int64_t)1 << 20));                                        \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }                                                                                                        \
    return MR_OK;

int mr_resize_bilinear_s8(const mr_resize_bilinear_params *p, const int8_t *in, int8_t *out)
{
    MR_BILINEAR_Q(int8_t)
}

int mr_resize_bilinear_s16(const mr_resize_bilinear_params *p, const int16_t *in, int16_t *out)
{
    MR_BILINEAR_Q(int16_t)
}

int mr_resize_bilinear_f32(const mr_resize_bilinear_params *p, const float *in, float *out)
{
    int32_t b, y, x, c;
    for (b = 0; b < p->batches; ++b) {
        const float *image = in + b * p->in_h * p->in_w * p->channels;
        for (y = 0; y < p->out_h; ++y) {
            const float *lo_row = image + p->row_lo[y] * p->in_w * p->channels;
            const float *hi_row = image + p->row_hi[y] * p->in_w * p->channels;
            const float fy = p->row_frac[y];
            for (x = 0; x < p->out_w; ++x) {
                const int32_t x0 = p->col_lo[x] * p->channels, x1 = p->col_hi[x] * p->channels;
                const float fx = p->col_frac[x];
                for (c = 0; c < p->channels; ++c) {
                    *out++ = lo_row[x0 + c] * (1.0f - fy) * (1.0f - fx) + hi_row[x0 + c] * fy * (1.0f - fx) +
                             lo_row[x1 + c] * (1.0f - fy) * fx + hi_row[x1 + c] * fy * fx + 0.0f;
                }
            }
        }
    }
    return MR_OK;
}
