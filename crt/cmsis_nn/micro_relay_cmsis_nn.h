/* The CMSIS-NN kernel backend (micro-relay compile --kernels cmsis-nn): adapters that take the parameter
 * structs our kernels take, build CMSIS-NN's structs from them at run time and call CMSIS-NN's int8 functions.
 *
 * The compiler (scripts/micro_relay/kernels/cmsis_nn/) calls an adapter only for a layer CMSIS-NN computes
 * bit-exactly and hands it exactly the scratch CMSIS-NN's *_get_buffer_size asks for (portable C or DSP
 * builds with GCC). Each returns a kernel status (micro_relay/crt.h): MR_OK, or MR_ERR_CMSIS_NN when CMSIS-NN
 * refused the arguments (the model's invoke then fails with it). This header needs only the runtime's headers;
 * the adapter sources need CMSIS-NN's Include/ folder and link against its sources.
 */
#ifndef MICRO_RELAY_CMSIS_NN_H
#define MICRO_RELAY_CMSIS_NN_H

#include "micro_relay/conv2d.h"
#include "micro_relay/dense.h"

/* scratch: p->scratch_bytes of arena (NULL when 0), for arm_convolve_wrapper_s8's im2col columns. */
int mr_cmsis_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                       int8_t *out, void *scratch);
/* geo.filter_c is the depth multiplier; scratch as above, for arm_depthwise_conv_wrapper_s8. */
int mr_cmsis_depthwise_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                                 int8_t *out, void *scratch);
/* Per-tensor (arm_fully_connected_s8) or per-channel (arm_fully_connected_per_channel_s8); w_zp must be 0. */
int mr_cmsis_dense_s8(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                      int8_t *out);

#if defined(ARM_NNFUNCTIONS_H) /* in the adapters, which include CMSIS-NN's header first */
/* The builds the compiler's scratch sizes and exactness checks hold for. */
#if defined(CMSIS_NN_USE_SINGLE_ROUNDING)
#error "micro_relay: CMSIS_NN_USE_SINGLE_ROUNDING is not bit-exact with TFLite Micro's double rounding"
#endif
#if defined(ARM_MATH_MVEI)
#error "micro_relay: the compiler plans CMSIS-NN scratch for portable C and DSP builds, not MVE"
#endif
#if defined(__ARMCC_VERSION)
#error "micro_relay: the compiler plans CMSIS-NN scratch for GCC builds (Arm Compiler 6 sizes 1x1 buffers differently)"
#endif

/* CMSIS-NN's quantization structs hold non-const pointers it only reads. */
#define MR_CMSIS_MUTABLE(ptr) ((int32_t *)(uintptr_t)(ptr))
/* A CMSIS-NN status as a kernel status. */
#define MR_CMSIS_STATUS(status) ((status) == ARM_CMSIS_NN_SUCCESS ? MR_OK : MR_ERR_CMSIS_NN)
#endif

#endif /* MICRO_RELAY_CMSIS_NN_H */
