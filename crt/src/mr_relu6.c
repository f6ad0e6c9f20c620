/* nn.relu6 kernels, bit-exact with TFLite Micro's RELU6 (activations.h Relu6Quantized / Relu6Float). */
#include "micro_relay/relu6.h"

int mr_relu6_s8(const mr_relu6_q_params *p, const int8_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t x = in[i];
        out[i] = (int8_t)(x > p->upper ? p->upper : (x < p->lower ? p->lower : x));
    }
    return MR_OK;
}

int mr_relu6_s16(const mr_relu6_q_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t x = in[i];
        out[i] = (int16_t)(x > p->upper ? p->upper : (x < p->lower ? p->lower : x));
    }
    return MR_OK;
}

int mr_relu6_f32(const mr_relu6_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const float x = in[i];
        out[i] = x > 6.0f ? 6.0f : (x < 0.0f ? 0.0f : x);
    }
    return MR_OK;
}
