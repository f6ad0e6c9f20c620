/* space_to_batch_nd / batch_to_space_nd kernels: both walk the batch side in order (the output of
 * space_to_batch, the input of batch_to_space); each pixel there is one image pixel, or padding / cropped. */
#include <string.h>

#include "micro_relay/space_batch.h"

/* The image pixel that batch-side pixel (batch k, y, x) shows, or -1 outside the image. */
static int32_t mr_image_pixel(const mr_space_batch_params *p, int32_t k, int32_t y, int32_t x)
{
    const int32_t b = k % p->batches, phase = k / p->batches;
    const int32_t iy = y * p->block_h + phase / p->block_w - p->offset_h;
    const int32_t ix = x * p->block_w + phase % p->block_w - p->offset_w;
    if (iy < 0 || iy >= p->image_h || ix < 0 || ix >= p->image_w) {
        return -1;
    }
    return (b * p->image_h + iy) * p->image_w + ix;
}

int mr_space_to_batch_nd(const mr_space_batch_params *p, const void *in, void *out)
{
    const size_t pixel = (size_t)p->pixel_bytes;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    int32_t k, y, x;
    for (k = 0; k < p->batches * p->block_h * p->block_w; ++k) {
        for (y = 0; y < p->grid_h; ++y) {
            for (x = 0; x < p->grid_w; ++x, dst += pixel) {
                const int32_t at = mr_image_pixel(p, k, y, x);
                if (at < 0) {
                    memset(dst, p->pad_byte, pixel);
                } else {
                    memcpy(dst, src + (size_t)at * pixel, pixel);
                }
            }
        }
    }
    return MR_OK;
}

int mr_batch_to_space_nd(const mr_space_batch_params *p, const void *in, void *out)
{
    const size_t pixel = (size_t)p->pixel_bytes;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    int32_t k, y, x;
    for (k = 0; k < p->batches * p->block_h * p->block_w; ++k) {
        for (y = 0; y < p->grid_h; ++y) {
            for (x = 0; x < p->grid_w; ++x, src += pixel) {
                const int32_t at = mr_image_pixel(p, k, y, x);
                if (at >= 0) {
                    memcpy(dst + (size_t)at * pixel, src, pixel);
                }
            }
        }
    }
    return MR_OK;
}
