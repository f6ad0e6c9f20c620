/* subtract kernels, bit-exact with TFLite Micro's reference TFLite SUB (TFLM_ARITHMETIC.md section 3). */
#include "micro_relay/subtract.h"
#include "micro_relay/fixedpoint.h"

/* Both inputs to the common scale 2 max(s1, s2) << left_shift, then -, then to the output scale. */
static inline int32_t mr_subtract_q(const mr_addsub_q_params *p, int32_t a, int32_t b)
{
    int32_t raw;
    if (p->single_shift) { /* one rounding (ONNX QDQ) */
        raw = mr_addsub_single(p, a, b, -1);
    } else {
        const int32_t scaled_a = mr_mbqm((a + p->a_offset) * ((int32_t)1 << p->left_shift), p->a_mult, p->a_shift);
        const int32_t scaled_b = mr_mbqm((b + p->b_offset) * ((int32_t)1 << p->left_shift), p->b_mult, p->b_shift);
        raw = mr_mbqm(scaled_a - scaled_b, p->out_mult, p->out_shift) + p->out_offset;
    }
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

static inline float mr_subtract_f(const mr_addsub_f32_params *p, float a, float b)
{
    const float raw = a - b;
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

int mr_subtract_s8(const mr_addsub_q_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int8_t)mr_subtract_q(p, a[ia], b[ib]));
    return MR_OK;
}

int mr_subtract_s16(const mr_addsub_q_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int16_t)mr_subtract_q(p, a[ia], b[ib]));
    return MR_OK;
}

int mr_subtract_f32(const mr_addsub_f32_params *p, const float *a, const float *b, float *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = mr_subtract_f(p, a[ia], b[ib]));
    return MR_OK;
}
