/* where: an odometer over the collapsed output dims keeps one offset per input. */
#include "micro_relay/where.h"

/* Step to the next output element: the innermost dim first, carrying into the outer ones. */
static void mr_where_next(const mr_where_params *p, int32_t *index, int32_t *offset)
{
    int32_t d, k;
    for (d = p->rank - 1; d >= 0; --d) {
        for (k = 0; k < 3; ++k) {
            offset[k] += p->strides[k][d];
        }
        if (++index[d] < p->dims[d]) {
            return;
        }
        for (k = 0; k < 3; ++k) {
            offset[k] -= p->strides[k][d] * p->dims[d];
        }
        index[d] = 0;
    }
}

#define MR_WHERE_DEFINE(NAME, T)                                                                   \
    int NAME(const mr_where_params *p, const uint8_t *cond, const T *x, const T *y, T *out)        \
    {                                                                                              \
        int32_t index[MR_WHERE_MAX_RANK] = {0};                                                    \
        int32_t offset[3] = {0, 0, 0};                                                             \
        int32_t i;                                                                                 \
        for (i = 0; i < p->size; ++i) {                                                            \
            out[i] = cond[offset[0]] ? x[offset[1]] : y[offset[2]];                                \
            mr_where_next(p, index, offset);                                                       \
        }                                                                                          \
        return MR_OK;                                                                              \
    }

MR_WHERE_DEFINE(mr_where_s8, int8_t)
MR_WHERE_DEFINE(mr_where_s16, int16_t)
MR_WHERE_DEFINE(mr_where_s32, int32_t)
MR_WHERE_DEFINE(mr_where_f32, float)
