/* strided_slice kernel: a raw strided gather, as TFLite Micro's reference StridedSlice (TFLM_ARITHMETIC.md
 * sec. 7). Begin/end/stride were resolved at compile time (masks, negative indices, clamping), so only
 * offsets remain. Unit-step innermost runs are one memcpy; others copy element by element. */
#include <string.h>

#include "micro_relay/strided_slice.h"

/* Copy n elements of SIZE bytes, `step` elements apart; a constant SIZE lets memcpy become one load/store. */
#define MR_SLICE_GATHER(SIZE)                                                                                \
    for (j = 0; j < n; ++j) {                                                                                \
        memcpy(dst + (size_t)j * (SIZE), src + (ptrdiff_t)j * step * (ptrdiff_t)(SIZE), (SIZE));            \
    }

int mr_strided_slice(const mr_strided_slice_params *p, const void *in, void *out)
{
    enum { L = MR_STRIDED_SLICE_MAX_DIMS - 1 };
    const size_t elem = (size_t)p->elem_size;
    const uint8_t *base = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    const int32_t n = p->dims[L], step = p->steps[L];
    const size_t run = (size_t)n * elem;
    int32_t i0, i1, i2, i3, j;
    for (i0 = 0; i0 < p->dims[0]; ++i0) {
        for (i1 = 0; i1 < p->dims[1]; ++i1) {
            for (i2 = 0; i2 < p->dims[2]; ++i2) {
                for (i3 = 0; i3 < p->dims[3]; ++i3) {
                    const int32_t offset = p->start + i0 * p->steps[0] + i1 * p->steps[1] + i2 * p->steps[2] +
                                           i3 * p->steps[3];
                    const uint8_t *src = base + (ptrdiff_t)offset * (ptrdiff_t)elem;
                    if (step == 1) {
                        memcpy(dst, src, run);
                    } else if (elem == 1) {
                        for (j = 0; j < n; ++j) {
                            dst[j] = src[(ptrdiff_t)j * step];
                        }
                    } else if (elem == 2) {
                        MR_SLICE_GATHER(2);
                    } else if (elem == 4) {
                        MR_SLICE_GATHER(4);
                    } else {
                        MR_SLICE_GATHER(elem);
                    }
                    dst += run;
                }
            }
        }
    }
    return MR_OK;
}
