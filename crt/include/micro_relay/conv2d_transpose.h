/*
 * nn.conv2d_transpose (TFLite TRANSPOSE_CONV), NHWC data, OHWI weights: every input value is scattered,
 *   out[b][iy*stride_h - pad_top + fy][ix*stride_w - pad_left + fx][oc] += in[b][iy][ix][ic] * w[oc][fy][fx][ic]
 * (taps landing outside the output are dropped), then bias is added and the result clamped. The geometry's
 * in_* describe the input, out_* the output; filter_c = in_c, dilation 1.
 * Integer kernels accumulate in `scratch` (out size int32 for int8, int64 for int16), as TFLite Micro does.
 */
#ifndef MICRO_RELAY_CONV2D_TRANSPOSE_H
#define MICRO_RELAY_CONV2D_TRANSPOSE_H

#include "conv2d.h"

int mr_conv2d_transpose_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                           int8_t *out, int32_t *scratch);
int mr_conv2d_transpose_s16_wide(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w,
                                 const int64_t *bias, int16_t *out, int64_t *scratch);
int mr_conv2d_transpose_f32(const mr_conv2d_f32_params *p, const float *in, const float *w, const float *bias,
                            float *out);

#endif /* MICRO_RELAY_CONV2D_TRANSPOSE_H */
