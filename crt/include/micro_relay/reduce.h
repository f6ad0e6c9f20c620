/* reduce (TFLite SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD): fold some axes of a tensor into one value.
 * Integer SUM is the mean kernel (mean.h) with the multiplier not divided by the count. */
#ifndef MICRO_RELAY_REDUCE_H
#define MICRO_RELAY_REDUCE_H

#include "crt.h"

#define MR_REDUCE_MAX_DIMS 4

/* The input seen as kept axes (in output order) by reduced axes (in input order), each padded with outer
 * size-1 axes; steps are in input elements (as mr_mean_*_params). */
typedef struct {
    int32_t outer_dims[MR_REDUCE_MAX_DIMS], outer_steps[MR_REDUCE_MAX_DIMS];
    int32_t inner_dims[MR_REDUCE_MAX_DIMS], inner_steps[MR_REDUCE_MAX_DIMS];
} mr_reduce_params;

int mr_reduce_sum_f32(const mr_reduce_params *p, const float *in, float *out);
int mr_reduce_prod_f32(const mr_reduce_params *p, const float *in, float *out);
int mr_reduce_max_s8(const mr_reduce_params *p, const int8_t *in, int8_t *out);
int mr_reduce_max_s16(const mr_reduce_params *p, const int16_t *in, int16_t *out);
int mr_reduce_max_f32(const mr_reduce_params *p, const float *in, float *out);
int mr_reduce_min_s8(const mr_reduce_params *p, const int8_t *in, int8_t *out);
int mr_reduce_min_s16(const mr_reduce_params *p, const int16_t *in, int16_t *out);
int mr_reduce_min_f32(const mr_reduce_params *p, const float *in, float *out);

#endif
