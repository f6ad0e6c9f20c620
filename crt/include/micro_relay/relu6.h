/* nn.relu6 (TFLite RELU6): out = min(max(x, 0), 6), quantized inputs clamped in their own scale. */
#ifndef MICRO_RELAY_RELU6_H
#define MICRO_RELAY_RELU6_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t lower, upper; /* the input's quantized 0 and 6 */
} mr_relu6_q_params;

typedef struct {
    int32_t size;
} mr_relu6_f32_params;

int mr_relu6_s8(const mr_relu6_q_params *p, const int8_t *in, int8_t *out);
int mr_relu6_s16(const mr_relu6_q_params *p, const int16_t *in, int16_t *out);
int mr_relu6_f32(const mr_relu6_f32_params *p, const float *in, float *out);

#endif
