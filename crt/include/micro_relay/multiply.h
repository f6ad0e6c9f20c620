/* multiply (TFLite MUL): out = act(a * b), numpy broadcasting (see elementwise.h). */
#ifndef MICRO_RELAY_MULTIPLY_H
#define MICRO_RELAY_MULTIPLY_H

#include "crt.h"
#include "elementwise.h"

typedef struct {
    mr_broadcast bc;
    int32_t size;                      /* output elements */
    int32_t a_offset, b_offset;        /* minus the input zero points */
    int32_t out_offset;                /* output zero point */
    int32_t mult, shift;               /* s1 * s2 / so */
    int32_t act_min, act_max;
    int32_t single_round;              /* nonzero: one rounding (mr_requant_single) */
} mr_multiply_q_params;

typedef struct {
    mr_broadcast bc;
    int32_t size;
    float act_min, act_max;
} mr_multiply_f32_params;

int mr_multiply_s8(const mr_multiply_q_params *p, const int8_t *a, const int8_t *b, int8_t *out);
int mr_multiply_s16(const mr_multiply_q_params *p, const int16_t *a, const int16_t *b, int16_t *out);
int mr_multiply_f32(const mr_multiply_f32_params *p, const float *a, const float *b, float *out);

#endif
