/* float32 element-wise unary math (TFLite Micro's float kernels and the ONNX float ops): one parameter
 * struct for all; alpha and beta are read only by the ops that name them. */
#ifndef MICRO_RELAY_UNARY_F32_H
#define MICRO_RELAY_UNARY_F32_H

#include "crt.h"

typedef struct {
    int32_t size;
    float alpha; /* elu: alpha; hard_sigmoid: slope */
    float beta;  /* hard_sigmoid: offset */
} mr_unary_f32_params;

int mr_abs_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_negative_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_exp_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_log_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_sqrt_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_rsqrt_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_square_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_floor_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_ceil_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_round_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_erf_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_softplus_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_hard_sigmoid_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_hard_swish_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_elu_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_gelu_f32(const mr_unary_f32_params *p, const float *in, float *out);
int mr_gelu_tanh_f32(const mr_unary_f32_params *p, const float *in, float *out);

#endif
