/* take and gather_nd kernels: every position is read and checked first, so an invalid one stops the model
 * before the output is touched (the output may not alias the positions: the planner keeps them apart). */
#include <string.h>

#include "micro_relay/gather.h"

static int64_t mr_position(const void *indices, int32_t index_bytes, int32_t i)
{
    if (index_bytes == 8) {
        return ((const int64_t *)indices)[i];
    }
    return (int64_t)((const int32_t *)indices)[i];
}

/* The position as an index in [0, size), or -1 when it is outside. */
static int32_t mr_checked(int64_t position, int32_t size, int32_t wrap_negative)
{
    if (wrap_negative && position < 0) {
        position += size;
    }
    return (position >= 0 && position < (int64_t)size) ? (int32_t)position : -1;
}

int mr_gather(const mr_gather_params *p, const void *in, const void *indices, void *out)
{
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    const size_t row = (size_t)p->inner_bytes;
    int32_t b, o, i;
    for (i = 0; i < p->batches * p->count; ++i) {
        if (mr_checked(mr_position(indices, p->index_bytes, i), p->axis_size, p->wrap_negative) < 0) {
            return MR_ERR_INDEX;
        }
    }
    for (b = 0; b < p->batches; ++b) {
        for (o = 0; o < p->outer; ++o) {
            const uint8_t *base = src + ((size_t)b * (size_t)p->outer + (size_t)o) * (size_t)p->axis_size * row;
            for (i = 0; i < p->count; ++i) {
                const int64_t position = mr_position(indices, p->index_bytes, b * p->count + i);
                const int32_t k = mr_checked(position, p->axis_size, p->wrap_negative);
                memcpy(dst, base + (size_t)k * row, row);
                dst += row;
            }
        }
    }
    return MR_OK;
}

int mr_gather_nd(const mr_gather_nd_params *p, const void *in, const void *indices, void *out)
{
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    const size_t slice = (size_t)p->slice_bytes;
    int32_t i, k;
    for (i = 0; i < p->count * p->depth; ++i) {
        if (mr_checked(mr_position(indices, p->index_bytes, i), p->dims[i % p->depth], 0) < 0) {
            return MR_ERR_INDEX;
        }
    }
    for (i = 0; i < p->count; ++i) {
        size_t offset = 0;
        for (k = 0; k < p->depth; ++k) {
            offset += (size_t)mr_position(indices, p->index_bytes, i * p->depth + k) * (size_t)p->steps[k];
        }
        memcpy(dst, src + offset * slice, slice);
        dst += slice;
    }
    return MR_OK;
}
