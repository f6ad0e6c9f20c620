/* qnn.quantize kernels, bit-exact with TFLite Micro's reference QUANTIZE (TFLM_ARITHMETIC.md section 6). */
#include <math.h>

#include "micro_relay/quantize.h"
#include "micro_relay/fixedpoint.h"

/* round(x / scale) in float, halves away from zero (TFLite) or to even (ONNX: rintf in the default rounding mode),
 * saturated to [lo, hi] (NaN to lo), plus the zero point. */
static inline int32_t mr_quantize_one(const mr_quantize_f32_params *p, float x)
{
    float r = p->ties_even ? rintf(x / p->scale) : roundf(x / p->scale);
    if (!(r >= p->lo)) {
        r = p->lo;
    }
    if (r > p->hi) {
        r = p->hi;
    }
    return (int32_t)r + p->out_zp;
}

int mr_quantize_f32_s8(const mr_quantize_f32_params *p, const float *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int8_t)mr_quantize_one(p, in[i]);
    }
    return MR_OK;
}

int mr_quantize_f32_s16(const mr_quantize_f32_params *p, const float *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int16_t)mr_quantize_one(p, in[i]);
    }
    return MR_OK;
}

/* MBQM32(q - in_zp) + out_zp with int32 wrap-around (through uint32, as TFLite Micro's int32 overflows). */
static inline int32_t mr_requantize_one(const mr_requantize_params *p, int32_t q)
{
    const int32_t v = (int32_t)((uint32_t)q - (uint32_t)p->in_zp);
    const int32_t scaled = p->single_round ? mr_requant_single(v, p->mult, p->shift) : mr_mbqm(v, p->mult, p->shift);
    return (int32_t)((uint32_t)scaled + (uint32_t)p->out_zp);
}

#define MR_REQUANTIZE(NAME, IN_T, OUT_T, LO, HI)                                \
    int NAME(const mr_requantize_params *p, const IN_T *in, OUT_T *out)         \
    {                                                                           \
        int32_t i;                                                              \
        for (i = 0; i < p->size; ++i) {                                         \
            const int32_t v = mr_requantize_one(p, in[i]);                      \
            out[i] = (OUT_T)MR_CLAMP(v, LO, HI);                                \
        }                                                                       \
        return MR_OK;                                                           \
    }

MR_REQUANTIZE(mr_quantize_s8_s8, int8_t, int8_t, INT8_MIN, INT8_MAX)
MR_REQUANTIZE(mr_quantize_s8_u8, int8_t, uint8_t, 0, UINT8_MAX)
MR_REQUANTIZE(mr_quantize_s8_s16, int8_t, int16_t, INT16_MIN, INT16_MAX)
MR_REQUANTIZE(mr_quantize_s8_s32, int8_t, int32_t, INT32_MIN, INT32_MAX)
MR_REQUANTIZE(mr_quantize_s16_s8, int16_t, int8_t, INT8_MIN, INT8_MAX)
MR_REQUANTIZE(mr_quantize_s16_s16, int16_t, int16_t, INT16_MIN, INT16_MAX)
MR_REQUANTIZE(mr_quantize_s16_s32, int16_t, int32_t, INT32_MIN, INT32_MAX)
MR_REQUANTIZE(mr_quantize_s32_s8, int32_t, int8_t, INT8_MIN, INT8_MAX)
MR_REQUANTIZE(mr_quantize_s32_s16, int32_t, int16_t, INT16_MIN, INT16_MAX)
MR_REQUANTIZE(mr_quantize_u8_s8, uint8_t, int8_t, INT8_MIN, INT8_MAX)
