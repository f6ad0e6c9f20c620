/* mean (TFLite MEAN): average over some axes. */
#ifndef MICRO_RELAY_MEAN_H
#define MICRO_RELAY_MEAN_H

#include "crt.h"

#define MR_MEAN_MAX_DIMS 4

/* The input seen as kept axes (in output order) and reduced axes (in input order), each padded with outer
 * size-1 axes; steps are in input elements. The compiler merges neighbouring axes of the same kind, so the
 * NHWC spatial mean is kept [N, C] by reduced [H*W]. */
typedef struct {
    int32_t outer_dims[MR_MEAN_MAX_DIMS], outer_steps[MR_MEAN_MAX_DIMS];
    int32_t inner_dims[MR_MEAN_MAX_DIMS], inner_steps[MR_MEAN_MAX_DIMS];
    int32_t count;              /* elements averaged per output */
    int32_t in_zp, out_zp;
    int32_t mult, shift;        /* in_s / out_s with 1/count folded in (QuantizedMeanOrSum) */
} mr_mean_q_params;

typedef struct {
    int32_t outer_dims[MR_MEAN_MAX_DIMS], outer_steps[MR_MEAN_MAX_DIMS];
    int32_t inner_dims[MR_MEAN_MAX_DIMS], inner_steps[MR_MEAN_MAX_DIMS];
    int32_t count;
} mr_mean_f32_params;

int mr_mean_s8(const mr_mean_q_params *p, const int8_t *in, int8_t *out);
int mr_mean_s16(const mr_mean_q_params *p, const int16_t *in, int16_t *out);
int mr_mean_f32(const mr_mean_f32_params *p, const float *in, float *out);

#endif
