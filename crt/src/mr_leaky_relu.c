/* nn.leaky_relu kernels, bit-exact with TFLite Micro's reference LEAKY_RELU (TFLM_ARITHMETIC.md sec. 7). */
#include "micro_relay/leaky_relu.h"
#include "micro_relay/fixedpoint.h"

static inline int32_t mr_leaky_relu_q(const mr_leaky_relu_q_params *p, int32_t q)
{
    const int32_t x = q - p->in_zp;
    if (x >= 0) {
        return mr_mbqm(x, p->id_mult, p->id_shift) + p->out_zp;
    } else {
        const int32_t scaled = mr_mbqm(x, p->alpha_mult, p->alpha_shift);
        return (p->alpha_negative ? -scaled : scaled) + p->out_zp;
    }
}

int mr_leaky_relu_s8(const mr_leaky_relu_q_params *p, const int8_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t v = mr_leaky_relu_q(p, in[i]);
        out[i] = (int8_t)MR_CLAMP(v, INT8_MIN, INT8_MAX);
    }
    return MR_OK;
}

int mr_leaky_relu_s16(const mr_leaky_relu_q_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t v = mr_leaky_relu_q(p, in[i]);
        out[i] = (int16_t)MR_CLAMP(v, INT16_MIN, INT16_MAX);
    }
    return MR_OK;
}

int mr_leaky_relu_f32(const mr_leaky_relu_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const float x = in[i];
        out[i] = x > 0.0f ? x : x * p->alpha;
    }
    return MR_OK;
}
