/* float32 unary math, in TFLite Micro's order of float operations where it has the op (elementwise.cc,
 * exp.cc, floor.cc, ceil.cc, round.cc, elu.cc, hard_swish.cc); the others follow their ONNX definitions. */
#include <math.h>

#include "micro_relay/unary_f32.h"

#define MR_UNARY_F32(name, expr)                                                  \
    int mr_##name##_f32(const mr_unary_f32_params *p, const float *in, float *out) \
    {                                                                              \
        int32_t i;                                                                 \
        for (i = 0; i < p->size; ++i) {                                            \
            const float x = in[i];                                                 \
            out[i] = (expr);                                                       \
        }                                                                          \
        return MR_OK;                                                              \
    }

/* TFLite's RoundToNearest: halves to even, NaN and infinities through floor + 1. */
static float mr_round_half_even(float x)
{
    const float f = floorf(x);
    const float d = x - f;
    if (d < 0.5f || (d == 0.5f && fmodf(f, 2.0f) == 0.0f)) {
        return f;
    }
    return f + 1.0f;
}

/* std::max(0, x) then std::min(6, .): a NaN sum gives 0, as in TFLite's reference HardSwish. */
static float mr_relu6_of(float x)
{
    const float lo = 0.0f < x ? x : 0.0f;
    return lo < 6.0f ? lo : 6.0f;
}

/* log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for positive x. */
static float mr_softplus(float x)
{
    return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));
}

static float mr_clamp01(float y)
{
    const float lo = y > 0.0f ? y : 0.0f;
    return lo < 1.0f ? lo : 1.0f;
}

MR_UNARY_F32(abs, fabsf(x))
MR_UNARY_F32(negative, -x)
MR_UNARY_F32(exp, expf(x))
MR_UNARY_F32(log, logf(x))
MR_UNARY_F32(sqrt, sqrtf(x))
MR_UNARY_F32(rsqrt, 1.0f / sqrtf(x))
MR_UNARY_F32(square, x * x)
MR_UNARY_F32(floor, floorf(x))
MR_UNARY_F32(ceil, ceilf(x))
MR_UNARY_F32(round, mr_round_half_even(x))
MR_UNARY_F32(erf, erff(x))
MR_UNARY_F32(softplus, mr_softplus(x))
MR_UNARY_F32(hard_sigmoid, mr_clamp01(p->alpha * x + p->beta))
MR_UNARY_F32(hard_swish, x * mr_relu6_of(x + 3.0f) / 6.0f)
MR_UNARY_F32(elu, x < 0.0f ? p->alpha * expm1f(x) : x)
MR_UNARY_F32(gelu, 0.5f * x * (1.0f + erff(x * 0.70710678118654752440f)))
MR_UNARY_F32(gelu_tanh, 0.5f * x * (1.0f + tanhf(0.79788456080286535588f * (x + 0.044715f * x * x * x))))
