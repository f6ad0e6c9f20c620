/* maximum and minimum (TFLite MAXIMUM, MINIMUM): raw values, numpy broadcasting (see elementwise.h). */
#ifndef MICRO_RELAY_MINMAX_H
#define MICRO_RELAY_MINMAX_H

#include "binary.h"

int mr_maximum_s8(const mr_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out);
int mr_maximum_s16(const mr_binary_params *p, const int16_t *a, const int16_t *b, int16_t *out);
int mr_maximum_s32(const mr_binary_params *p, const int32_t *a, const int32_t *b, int32_t *out);
int mr_maximum_f32(const mr_binary_params *p, const float *a, const float *b, float *out);
int mr_minimum_s8(const mr_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out);
int mr_minimum_s16(const mr_binary_params *p, const int16_t *a, const int16_t *b, int16_t *out);
int mr_minimum_s32(const mr_binary_params *p, const int32_t *a, const int32_t *b, int32_t *out);
int mr_minimum_f32(const mr_binary_params *p, const float *a, const float *b, float *out);

#endif
