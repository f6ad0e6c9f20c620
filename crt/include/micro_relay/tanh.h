/* tanh (TFLite TANH); int8 by gemmlowp's fixed point. */
#ifndef MICRO_RELAY_TANH_H
#define MICRO_RELAY_TANH_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t in_zp;
    int32_t mult, shift; /* in_s * 2^27 as frexp gives it: the input in Q4.27 */
    int32_t radius;      /* |q - in_zp| >= radius saturates */
} mr_tanh_s8_params;

typedef struct {
    int32_t size;
} mr_tanh_f32_params;

int mr_tanh_s8(const mr_tanh_s8_params *p, const int8_t *in, int8_t *out);
int mr_tanh_f32(const mr_tanh_f32_params *p, const float *in, float *out);

#endif
