/* nn.leaky_relu (TFLite LEAKY_RELU): out = x > 0 ? x : alpha * x. */
#ifndef MICRO_RELAY_LEAKY_RELU_H
#define MICRO_RELAY_LEAKY_RELU_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t in_zp, out_zp;
    int32_t id_mult, id_shift;       /* in_s / out_s, for x >= 0 */
    int32_t alpha_mult, alpha_shift; /* |in_s * alpha / out_s|, for x < 0 */
    int32_t alpha_negative;          /* alpha < 0: negate the scaled value */
} mr_leaky_relu_q_params;

typedef struct {
    int32_t size;
    float alpha;
} mr_leaky_relu_f32_params;

int mr_leaky_relu_s8(const mr_leaky_relu_q_params *p, const int8_t *in, int8_t *out);
int mr_leaky_relu_s16(const mr_leaky_relu_q_params *p, const int16_t *in, int16_t *out);
int mr_leaky_relu_f32(const mr_leaky_relu_f32_params *p, const float *in, float *out);

#endif
