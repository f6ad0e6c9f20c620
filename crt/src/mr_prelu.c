/* prelu kernels, bit-exact with TFLite Micro's PRELU (R/prelu.h). */
#include "micro_relay/prelu.h"
#include "micro_relay/fixedpoint.h"

/* x * (alpha - alpha_zp) is below 2^24 in magnitude (int16 x, int8 alpha). */
static inline int32_t mr_prelu_raw(const mr_prelu_q_params *p, int32_t x, int32_t alpha)
{
    const int32_t v = x + p->in_offset;
    return (v >= 0 ? mr_mbqm(v, p->mult1, p->shift1)
                   : mr_mbqm(v * (alpha + p->alpha_offset), p->mult2, p->shift2)) + p->out_offset;
}

static inline int32_t mr_prelu_q8(const mr_prelu_q_params *p, int32_t x, int32_t alpha)
{
    const int32_t raw = mr_prelu_raw(p, x, alpha);
    return MR_CLAMP(raw, -128, 127);
}

static inline int32_t mr_prelu_q16(const mr_prelu_q_params *p, int32_t x, int32_t alpha)
{
    const int32_t raw = mr_prelu_raw(p, x, alpha);
    return MR_CLAMP(raw, -32768, 32767);
}

static inline float mr_prelu_f(const mr_binary_params *p, float x, float alpha)
{
    (void)p;
    return x >= 0.0f ? x : x * alpha;
}

MR_BINARY_FN(mr_prelu_s8, mr_prelu_q_params, int8_t, int8_t, int8_t, mr_prelu_q8)
MR_BINARY_FN(mr_prelu_s16, mr_prelu_q_params, int16_t, int8_t, int16_t, mr_prelu_q16)
MR_BINARY_FN(mr_prelu_f32, mr_binary_params, float, float, float, mr_prelu_f)
