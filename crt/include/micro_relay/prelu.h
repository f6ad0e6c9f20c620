/* prelu (TFLite PRELU): out = x >= 0 ? x : alpha * x, alpha broadcast against x (see elementwise.h). */
#ifndef MICRO_RELAY_PRELU_H
#define MICRO_RELAY_PRELU_H

#include "binary.h"

typedef struct {
    mr_broadcast bc;
    int32_t size;                    /* output elements */
    int32_t in_offset, alpha_offset; /* minus the zero points of x and alpha */
    int32_t out_offset;              /* output zero point */
    int32_t mult1, shift1;           /* in_s / out_s */
    int32_t mult2, shift2;           /* in_s * alpha_s / out_s */
} mr_prelu_q_params;

int mr_prelu_s8(const mr_prelu_q_params *p, const int8_t *x, const int8_t *alpha, int8_t *out);
/* int16 x and output, int8 alpha (as TFLite Micro requires) */
int mr_prelu_s16(const mr_prelu_q_params *p, const int16_t *x, const int8_t *alpha, int16_t *out);
int mr_prelu_f32(const mr_binary_params *p, const float *x, const float *alpha, float *out);

#endif
