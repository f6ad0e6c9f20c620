/* nn.log_softmax over the last axis: float32 x - max - log(sum(exp(x - max))); int8 as TFLite Micro's
 * LOG_SOFTMAX in gemmlowp fixed point (output scale 16/256, zero point 127). */
#ifndef MICRO_RELAY_LOG_SOFTMAX_H
#define MICRO_RELAY_LOG_SOFTMAX_H

#include "crt.h"

typedef struct {
    int32_t rows, depth;
} mr_log_softmax_f32_params;

typedef struct {
    int32_t rows, depth;
    int32_t mult, shift;         /* in_s * 2^26: input differences to Q5.26 (shift >= 1) */
    int32_t rev_mult, rev_shift; /* the inverse of that rescale (rev_shift <= 0) */
    int32_t diff_min;            /* differences below this contribute nothing and output -128 */
} mr_log_softmax_s8_params;

int mr_log_softmax_f32(const mr_log_softmax_f32_params *p, const float *in, float *out);
int mr_log_softmax_s8(const mr_log_softmax_s8_params *p, const int8_t *in, int8_t *out);

#endif
