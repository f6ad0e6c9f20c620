/* nn.relu kernels, bit-exact with TFLite Micro's RELU (activations.cc ReluQuantized / ReluFloat). */
#include "micro_relay/relu.h"
#include "micro_relay/fixedpoint.h"

static inline int32_t mr_relu_q(const mr_relu_q_params *p, int32_t q)
{
    const int32_t v = mr_mbqm(q - p->in_zp, p->mult, p->shift) + p->out_zp;
    return MR_CLAMP(v, p->act_min, p->act_max);
}

int mr_relu_s8(const mr_relu_q_params *p, const int8_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int8_t)mr_relu_q(p, in[i]);
    }
    return MR_OK;
}

int mr_relu_s16(const mr_relu_q_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int16_t)mr_relu_q(p, in[i]);
    }
    return MR_OK;
}

int mr_relu_f32(const mr_relu_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const float x = in[i];
        out[i] = x < 0.0f ? 0.0f : x;
    }
    return MR_OK;
}
