/* add (TFLite ADD): out = act(a + b), numpy broadcasting (see elementwise.h). */
#ifndef MICRO_RELAY_ADD_H
#define MICRO_RELAY_ADD_H

#include "crt.h"
#include "elementwise.h"

int mr_add_s8(const mr_addsub_q_params *p, const int8_t *a, const int8_t *b, int8_t *out);
int mr_add_s16(const mr_addsub_q_params *p, const int16_t *a, const int16_t *b, int16_t *out);
int mr_add_f32(const mr_addsub_f32_params *p, const float *a, const float *b, float *out);

#endif
