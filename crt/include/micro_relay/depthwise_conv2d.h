/*
 * nn.depthwise_conv2d (TFLite DEPTHWISE_CONV_2D), NHWC data, weights [1][k_h][k_w][in_c * m]:
 *   out[b][oy][ox][ic*m+j] = act(bias + sum over in-image taps (fy, fx) of w[0][fy][fx][ic*m+j] * in[b][iy][ix][ic])
 * The geometry's filter_c holds the depth multiplier m.
 */
#ifndef MICRO_RELAY_DEPTHWISE_CONV2D_H
#define MICRO_RELAY_DEPTHWISE_CONV2D_H

#include "conv2d.h"

int mr_depthwise_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                           int8_t *out);

/* Output pixels a strip fill of the strip entry points' DSP path covers at most (a chunk of an output row). */
#define MR_DW_CHUNK 16

/*
 * The arena scratch of the strip entry points' DSP path for g: the one definition of its layout, which the kernel
 * uses and the compiler's plan must agree with (tests/kernels/test_layouts.py compares
 * kernels/arm_dsp/depthwise_conv2d.py with it). Compiled on every build, the host's included.
 * mr_depthwise_conv2d_s8_scratch_bytes: the bytes, with rolling strips when rolling is not 0, for the entry point
 * the compiler calls (a 3x3 one for 3x3 windows without dilation); 0 when the strip entry points do not take g
 * (more than 255 filter rows).
 * mr_depthwise_conv2d_s8_kept_rows: the rows a strip keeps from one output row to the next when the kernel has
 * scratch_bytes: k_h - stride_h when it rolls (no row dilation, stride_h < k_h, scratch_bytes holds the rolling
 * size), else 0.
 */
int32_t mr_depthwise_conv2d_s8_scratch_bytes(const mr_conv_geometry *g, int32_t rolling);
int32_t mr_depthwise_conv2d_s8_kept_rows(const mr_conv_geometry *g, int32_t scratch_bytes);

/* Any depth multiplier. scratch: p->scratch_bytes of 8-byte-aligned arena scratch for the DSP
 * path, sized by the compiler (mr_depthwise_conv2d_s8_scratch_bytes): MR_ERR_SCRATCH, nothing written, when it is
 * NULL or smaller than that size without rolling; the portable path does not use it and runs
 * mr_depthwise_conv2d_s8. Every strip entry point below rolls its strips when p->scratch_bytes
 * holds the larger size of rolling strips (the size with rolling): a strip per chunk and strip fill kept
 * across output rows, so a later row extends only its stride_h new input rows (windows without row dilation and
 * stride_h < k_h). Windows of at most 255 rows. */
int mr_depthwise_conv2d_s8_strip(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w,
                                 const int32_t *bias, int8_t *out, void *scratch);
/* The same for 3x3 windows without dilation (an assembly pixel loop on DSP cores). */
int mr_depthwise_conv2d_s8_strip3x3(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w,
                                    const int32_t *bias, int8_t *out, void *scratch);
/* The same when out_c is a multiple of 4 and the depth multiplier 1 or a multiple of 4 (whole blocks, no lanes
 * gathered): the compiler checks this before it picks this entry point or the two below. */
int mr_depthwise_conv2d_s8_strip3x3_x4(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w,
                                       const int32_t *bias, int8_t *out, void *scratch);
/* The same when besides every channel's requantization has mult >= 0 and shift in
 * [-21, -2] (mr_requant_zp_of holds it): the compiler checks this before it picks this entry point. */
int mr_depthwise_conv2d_s8_strip3x3_fast(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w,
                                         const int32_t *bias, int8_t *out, void *scratch);
/* The same when some channel's shift is -1 and every one is in [-21, -1] with mult >= 0 (3 more instructions a
 * channel and pixel than _fast, instead of raw sums requantized in C). */
int mr_depthwise_conv2d_s8_strip3x3_shift1(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w,
                                           const int32_t *bias, int8_t *out, void *scratch);
/* int16 activations always accumulate in int64 (TFLite Micro requires an int64 bias). */
int mr_depthwise_conv2d_s16_wide(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w,
                                 const int64_t *bias, int16_t *out);
int mr_depthwise_conv2d_f32(const mr_conv2d_f32_params *p, const float *in, const float *w, const float *bias,
                            float *out);

#endif /* MICRO_RELAY_DEPTHWISE_CONV2D_H */
