/* nn.pad kernel: a raw copy, as TFLite Micro's reference Pad (TFLM_ARITHMETIC.md sec. 7). The pad value is
 * chosen at compile time (int8: output zero point or the PADV2 constant; otherwise the constant or 0).
 *
 * Output rows (all axes but the last) are visited in order. A row outside the input along any outer axis is
 * all padding; a row inside is `before` pad values, one input row, `after` pad values. Input rows are met
 * in their own order, so the source pointer only moves forward. */
#include <string.h>

#include "micro_relay/pad.h"

/* Write `count` copies of one element: memset for bytes, else copy the element once and double the run. */
static void mr_pad_fill(uint8_t *dst, const uint8_t *value, size_t elem, size_t count)
{
    const size_t total = elem * count;
    size_t done;
    if (total == 0) {
        return;
    }
    if (elem == 1) {
        memset(dst, value[0], total);
        return;
    }
    memcpy(dst, value, elem);
    for (done = elem; done < total;) {
        const size_t n = done < total - done ? done : total - done;
        memcpy(dst + done, dst, n);
        done += n;
    }
}

int mr_pad(const mr_pad_params *p, const void *in, void *out)
{
    enum { R = MR_PAD_MAX_DIMS, L = MR_PAD_MAX_DIMS - 1 };
    const size_t elem = (size_t)p->elem_size;
    const uint8_t *value = (const uint8_t *)p->value;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    int32_t out_dims[R];
    int32_t i0, i1, i2, i3, k;
    size_t row_in, row_out;
    for (k = 0; k < R; ++k) {
        out_dims[k] = p->in_dims[k] + p->before[k] + p->after[k];
    }
    row_in = (size_t)p->in_dims[L] * elem;
    row_out = (size_t)out_dims[L] * elem;
    for (i0 = 0; i0 < out_dims[0]; ++i0) {
        const int in0 = i0 >= p->before[0] && i0 < p->before[0] + p->in_dims[0];
        for (i1 = 0; i1 < out_dims[1]; ++i1) {
            const int in1 = in0 && i1 >= p->before[1] && i1 < p->before[1] + p->in_dims[1];
            for (i2 = 0; i2 < out_dims[2]; ++i2) {
                const int in2 = in1 && i2 >= p->before[2] && i2 < p->before[2] + p->in_dims[2];
                for (i3 = 0; i3 < out_dims[3]; ++i3) {
                    if (in2 && i3 >= p->before[3] && i3 < p->before[3] + p->in_dims[3]) {
                        mr_pad_fill(dst, value, elem, (size_t)p->before[L]);
                        memcpy(dst + (size_t)p->before[L] * elem, src, row_in);
                        mr_pad_fill(dst + (size_t)p->before[L] * elem + row_in, value, elem, (size_t)p->after[L]);
                        src += row_in;
                    } else {
                        mr_pad_fill(dst, value, elem, (size_t)out_dims[L]);
                    }
                    dst += row_out;
                }
            }
        }
    }
    return MR_OK;
}
