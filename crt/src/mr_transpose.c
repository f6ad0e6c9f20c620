/* transpose kernel: a raw gather. The output is written in order; the input index is kept as a running sum
 * of per-axis steps (an odometer), so the innermost loop is one add per element. */
#include <string.h>

#include "micro_relay/transpose.h"

int mr_transpose(const mr_transpose_params *p, const void *in, void *out)
{
    enum { R = MR_TRANSPOSE_MAX_DIMS, L = MR_TRANSPOSE_MAX_DIMS - 1 };
    const size_t elem = (size_t)p->elem_size;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    int32_t index[R] = {0};
    int32_t offset = 0; /* input element index of the current output row's first element */
    int32_t k, i;
    for (;;) {
        const uint8_t *s = src + (size_t)offset * elem;
        const size_t step = (size_t)p->in_step[L] * elem;
        if (elem == 1) {
            for (i = 0; i < p->out_dims[L]; ++i, s += step) {
                *dst++ = *s;
            }
        } else {
            for (i = 0; i < p->out_dims[L]; ++i, s += step, dst += elem) {
                memcpy(dst, s, elem);
            }
        }
        for (k = L - 1; k >= 0; --k) { /* advance the odometer over the outer axes */
            offset += p->in_step[k];
            if (++index[k] < p->out_dims[k]) {
                break;
            }
            offset -= p->in_step[k] * p->out_dims[k];
            index[k] = 0;
        }
        if (k < 0) {
            return MR_OK;
        }
    }
}
