/* nn.softmax (TFLite SOFTMAX) over the last axis: int8 in gemmlowp fixed point, int16 by interpolated
 * tables built at compile time, float32 with expf. */
#ifndef MICRO_RELAY_SOFTMAX_H
#define MICRO_RELAY_SOFTMAX_H

#include "crt.h"

typedef struct {
    int32_t rows, depth;
    int32_t mult, shift; /* beta * in_s * 2^26: input differences to Q5.26 */
    int32_t diff_min;    /* differences below this contribute nothing and output the type minimum */
} mr_softmax_q_params;

typedef struct {
    int32_t rows, depth;
    int32_t mult, shift;      /* in_s * beta / (10 / 65535): differences to the exp table's [-10, 0] */
    const int16_t *exp_lut;   /* 513 entries: exp on [-10, 0] */
    const int16_t *recip_lut; /* 513 entries: 1 / (1 + x) on [0, 1] */
} mr_softmax_s16_params;

typedef struct {
    int32_t rows, depth;
    float beta;
} mr_softmax_f32_params;

int mr_softmax_s8_s8(const mr_softmax_q_params *p, const int8_t *in, int8_t *out);
int mr_softmax_s8_s16(const mr_softmax_q_params *p, const int8_t *in, int16_t *out);
int mr_softmax_s16_s16(const mr_softmax_s16_params *p, const int16_t *in, int16_t *out);
int mr_softmax_f32(const mr_softmax_f32_params *p, const float *in, float *out);

#endif
