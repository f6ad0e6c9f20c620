/* nn.avg_pool2d (TFLite AVERAGE_POOL_2D), NHWC: mean of each window's in-image taps, then the clamp. */
#ifndef MICRO_RELAY_AVG_POOL2D_H
#define MICRO_RELAY_AVG_POOL2D_H

#include "crt.h"

typedef struct {
    int32_t batches, in_h, in_w, channels, out_h, out_w;
    int32_t filter_h, filter_w, stride_h, stride_w;
    int32_t pad_top, pad_left;   /* bottom/right padding is implied by out_h/out_w */
    int32_t act_min, act_max;
} mr_avg_pool2d_q_params;

typedef struct {
    int32_t batches, in_h, in_w, channels, out_h, out_w;
    int32_t filter_h, filter_w, stride_h, stride_w;
    int32_t pad_top, pad_left;
    float act_min, act_max;
} mr_avg_pool2d_f32_params;

int mr_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out);
int mr_avg_pool2d_s16(const mr_avg_pool2d_q_params *p, const int16_t *in, int16_t *out);
int mr_avg_pool2d_f32(const mr_avg_pool2d_f32_params *p, const float *in, float *out);

#endif
