/* squared_difference (TFLite SQUARED_DIFFERENCE): out = (a - b)^2, numpy broadcasting (see elementwise.h). */
#ifndef MICRO_RELAY_SQUARED_DIFFERENCE_H
#define MICRO_RELAY_SQUARED_DIFFERENCE_H

#include "binary.h"

/* int8 takes ADD's parameter layout (left shift 7, both inputs to 2 max(s1, s2), the output multiplier). */
int mr_squared_difference_s8(const mr_addsub_q_params *p, const int8_t *a, const int8_t *b, int8_t *out);
int mr_squared_difference_f32(const mr_binary_params *p, const float *a, const float *b, float *out);

#endif
