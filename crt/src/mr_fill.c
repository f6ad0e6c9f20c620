/* fill kernels: the first element is copied from the value, then the filled prefix doubles, so a large
 * output takes about log2(count) memcpy calls. */
#include <string.h>

#include "micro_relay/fill.h"

int mr_fill(const mr_fill_params *p, const void *value, void *out)
{
    uint8_t *dst = (uint8_t *)out;
    const size_t total = (size_t)p->count * (size_t)p->elem_size;
    size_t done = (size_t)p->elem_size;
    if (total == 0) {
        return MR_OK;
    }
    memcpy(dst, value, (size_t)p->elem_size);
    while (done < total) {
        const size_t n = done < total - done ? done : total - done;
        memcpy(dst + done, dst, n);
        done += n;
    }
    return MR_OK;
}

int mr_fill_zero(const mr_fill_params *p, void *out)
{
    memset(out, 0, (size_t)p->count * (size_t)p->elem_size);
    return MR_OK;
}
