/* divide (TFLite DIV): out = act(a / b), numpy broadcasting (see elementwise.h); float32, int32 and int8. */
#ifndef MICRO_RELAY_DIVIDE_H
#define MICRO_RELAY_DIVIDE_H

#include "crt.h"
#include "elementwise.h"

typedef struct {
    mr_broadcast bc;
    int32_t size;               /* output elements */
    int32_t a_offset, b_offset; /* minus the input zero points */
    int32_t out_offset;         /* output zero point */
    int32_t mult, shift;        /* s1 / (s2 * so), shift in [7, 23] */
    int32_t act_min, act_max;
} mr_divide_s8_params;

typedef struct {
    mr_broadcast bc;
    int32_t size;
    int32_t act_min, act_max;
} mr_divide_s32_params;

int mr_divide_s8(const mr_divide_s8_params *p, const int8_t *a, const int8_t *b, int8_t *out);
int mr_divide_s32(const mr_divide_s32_params *p, const int32_t *a, const int32_t *b, int32_t *out);
int mr_divide_f32(const mr_addsub_f32_params *p, const float *a, const float *b, float *out);

#endif
