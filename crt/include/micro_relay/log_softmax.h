/* nn.log_softmax over the last axis, float32: x - max - log(sum(exp(x - max))). */
#ifndef MICRO_RELAY_LOG_SOFTMAX_H
#define MICRO_RELAY_LOG_SOFTMAX_H

#include "crt.h"

typedef struct {
    int32_t rows, depth;
} mr_log_softmax_f32_params;

int mr_log_softmax_f32(const mr_log_softmax_f32_params *p, const float *in, float *out);

#endif
