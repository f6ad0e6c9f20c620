/*
 * where (TFLite SELECT, SELECT_V2): out = cond ? x : y, the three broadcast against each other. The compiler
 * collapses the shapes as for the binary kernels (elementwise.h) into at most MR_WHERE_MAX_RANK dims with one
 * element stride per input, 0 where that input repeats; elements are copied raw.
 */
#ifndef MICRO_RELAY_WHERE_H
#define MICRO_RELAY_WHERE_H

#include "crt.h"

#define MR_WHERE_MAX_RANK 6

typedef struct {
    int32_t rank; /* >= 1 */
    int32_t dims[MR_WHERE_MAX_RANK];
    int32_t strides[3][MR_WHERE_MAX_RANK]; /* condition, x, y */
    int32_t size;                          /* output elements */
} mr_where_params;

int mr_where_s8(const mr_where_params *p, const uint8_t *cond, const int8_t *x, const int8_t *y, int8_t *out);
int mr_where_s16(const mr_where_params *p, const uint8_t *cond, const int16_t *x, const int16_t *y, int16_t *out);
int mr_where_s32(const mr_where_params *p, const uint8_t *cond, const int32_t *x, const int32_t *y, int32_t *out);
int mr_where_f32(const mr_where_params *p, const uint8_t *cond, const float *x, const float *y, float *out);

#endif
