/* floor_divide and floor_mod (TFLite FLOOR_DIV, FLOOR_MOD): numpy broadcasting (see elementwise.h). */
#ifndef MICRO_RELAY_FLOOR_DIV_H
#define MICRO_RELAY_FLOOR_DIV_H

#include "binary.h"

int mr_floor_divide_s32(const mr_binary_params *p, const int32_t *a, const int32_t *b, int32_t *out);
int mr_floor_divide_f32(const mr_binary_params *p, const float *a, const float *b, float *out);
int mr_floor_mod_s32(const mr_binary_params *p, const int32_t *a, const int32_t *b, int32_t *out);
int mr_floor_mod_f32(const mr_binary_params *p, const float *a, const float *b, float *out);

#endif
