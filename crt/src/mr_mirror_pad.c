/* mirror_pad kernel: the output is written in order; each output index maps to one input index per axis, so
 * an output row is its input row's middle (one memcpy) between mirrored edge elements. */
#include <string.h>

#include "micro_relay/mirror_pad.h"

/* The input index that output index i of an axis (padded by `before`) shows. */
static int32_t mr_mirror(int32_t i, int32_t before, int32_t dim, int32_t symmetric)
{
    int32_t t = i - before;
    if (t < 0) {
        t = -t - symmetric;
    } else if (t >= dim) {
        t = 2 * dim - 2 + symmetric - t;
    }
    return t;
}

int mr_mirror_pad(const mr_mirror_pad_params *p, const void *in, void *out)
{
    enum { L = MR_MIRROR_PAD_MAX_DIMS - 1 };
    const size_t elem = (size_t)p->elem_size;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    const int32_t before = p->before[L], dim = p->in_dims[L], width = p->out_dims[L];
    int32_t i0, i1, i2, i3, j;
    for (i0 = 0; i0 < p->out_dims[0]; ++i0) {
        const int32_t r0 = mr_mirror(i0, p->before[0], p->in_dims[0], p->symmetric);
        for (i1 = 0; i1 < p->out_dims[1]; ++i1) {
            const int32_t r1 = r0 * p->in_dims[1] + mr_mirror(i1, p->before[1], p->in_dims[1], p->symmetric);
            for (i2 = 0; i2 < p->out_dims[2]; ++i2) {
                const int32_t r2 = r1 * p->in_dims[2] + mr_mirror(i2, p->before[2], p->in_dims[2], p->symmetric);
                for (i3 = 0; i3 < p->out_dims[3]; ++i3) {
                    const int32_t r3 = r2 * p->in_dims[3] + mr_mirror(i3, p->before[3], p->in_dims[3], p->symmetric);
                    const uint8_t *row = src + (size_t)r3 * (size_t)dim * elem;
                    for (j = 0; j < before; ++j) {
                        memcpy(dst + (size_t)j * elem, row + (size_t)mr_mirror(j, before, dim, p->symmetric) * elem, elem);
                    }
                    memcpy(dst + (size_t)before * elem, row, (size_t)dim * elem);
                    for (j = before + dim; j < width; ++j) {
                        memcpy(dst + (size_t)j * elem, row + (size_t)mr_mirror(j, before, dim, p->symmetric) * elem, elem);
                    }
                    dst += (size_t)width * elem;
                }
            }
        }
    }
    return MR_OK;
}
