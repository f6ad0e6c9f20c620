/* nn.l2_normalize (TFLite L2_NORMALIZATION): each row of the last axis divided by its L2 norm. */
#ifndef MICRO_RELAY_L2_NORMALIZE_H
#define MICRO_RELAY_L2_NORMALIZE_H

#include "crt.h"

typedef struct {
    int32_t outer, depth; /* rows, and elements per row (the last axis) */
    int32_t in_zp;
} mr_l2_normalize_s8_params;

typedef struct {
    int32_t outer, depth;
} mr_l2_normalize_f32_params;

int mr_l2_normalize_s8(const mr_l2_normalize_s8_params *p, const int8_t *in, int8_t *out);
int mr_l2_normalize_f32(const mr_l2_normalize_f32_params *p, const float *in, float *out);

#endif
