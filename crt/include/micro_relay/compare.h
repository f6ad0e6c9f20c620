/*
 * The comparisons (TFLite EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL): one uint8_t 0 or 1 per
 * output element, numpy broadcasting (see elementwise.h). float32, int32 and bool compare raw values; int8
 * compares both sides rescaled to a common fixed point, as TFLite Micro's ComparisonWithScaling.
 */
#ifndef MICRO_RELAY_COMPARE_H
#define MICRO_RELAY_COMPARE_H

#include "binary.h"

typedef struct {
    mr_broadcast bc;
    int32_t size;               /* output elements */
    int32_t a_offset, b_offset; /* minus the input zero points */
    int32_t left_shift;         /* 8 */
    int32_t a_mult, a_shift, b_mult, b_shift; /* each input's scale, shift <= 0 */
} mr_compare_s8_params;

#define MR_COMPARE_DECLARE(OP)                                                                           \
    int mr_##OP##_s8(const mr_compare_s8_params *p, const int8_t *a, const int8_t *b, uint8_t *out);    \
    int mr_##OP##_s32(const mr_binary_params *p, const int32_t *a, const int32_t *b, uint8_t *out);     \
    int mr_##OP##_f32(const mr_binary_params *p, const float *a, const float *b, uint8_t *out);

MR_COMPARE_DECLARE(equal)
MR_COMPARE_DECLARE(not_equal)
MR_COMPARE_DECLARE(less)
MR_COMPARE_DECLARE(less_equal)
MR_COMPARE_DECLARE(greater)
MR_COMPARE_DECLARE(greater_equal)

int mr_equal_bool(const mr_binary_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out);
int mr_not_equal_bool(const mr_binary_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out);

#endif
