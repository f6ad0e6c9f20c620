/* nn.svdf (TFLite SVDF): per invoke, each state row of `memory` values shifts left by one and takes the feature
 * dot of the input in its last slot; the output is bias + the time dots (weights_time . state row) summed over
 * each unit's `rank` filters. `state` is the value at invoke start, `new_state` receives the updated one (the
 * two may be the same buffer). */
#ifndef MICRO_RELAY_SVDF_H
#define MICRO_RELAY_SVDF_H

#include "crt.h"

typedef struct {
    int32_t batch, input_size, filters, units, rank, memory;
    int32_t in_zp, state_zp, out_zp;
    int32_t mult1, shift1;     /* feature dot -> state scale */
    int32_t mult2, shift2;     /* unit sum -> output scale */
    int32_t state_min, state_max;
} mr_svdf_q_params;

typedef struct {
    int32_t batch, input_size, filters, units, rank, memory;
    float act_min, act_max;
} mr_svdf_f32_params;

/* int8 input and output, int16 weights_time and state */
int mr_svdf_s8_s16(const mr_svdf_q_params *p, const int8_t *in, const int8_t *wf, const int16_t *wt,
                   const int32_t *bias, const int16_t *state, int16_t *new_state, int8_t *out);
/* int8 input and output, int8 weights_time and state */
int mr_svdf_s8_s8(const mr_svdf_q_params *p, const int8_t *in, const int8_t *wf, const int8_t *wt,
                  const int32_t *bias, const int8_t *state, int8_t *new_state, int8_t *out);
/* float32 */
int mr_svdf_f32(const mr_svdf_f32_params *p, const float *in, const float *wf, const float *wt, const float *bias,
                const float *state, float *new_state, float *out);

#endif
