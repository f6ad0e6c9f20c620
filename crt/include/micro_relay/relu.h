/* nn.relu (TFLite RELU): out = max(x, 0); quantized inputs are requantized to the output's scale. */
#ifndef MICRO_RELAY_RELU_H
#define MICRO_RELAY_RELU_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t in_zp, out_zp;
    int32_t mult, shift;      /* in_s / out_s */
    int32_t act_min, act_max; /* max(type_min, out_zp), type_max */
} mr_relu_q_params;

typedef struct {
    int32_t size;
} mr_relu_f32_params;

int mr_relu_s8(const mr_relu_q_params *p, const int8_t *in, int8_t *out);
int mr_relu_s16(const mr_relu_q_params *p, const int16_t *in, int16_t *out);
int mr_relu_f32(const mr_relu_f32_params *p, const float *in, float *out);

#endif
