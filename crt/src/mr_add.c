/* add kernels, bit-exact with TFLite Micro's reference TFLite ADD (TFLM_ARITHMETIC.md section 3). */
#include "micro_relay/add.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/simd.h"

/* Both inputs to the common scale 2 max(s1, s2) << left_shift, then +, then to the output scale. */
static inline int32_t mr_add_q(const mr_addsub_q_params *p, int32_t a, int32_t b)
{
    const int32_t scaled_a = mr_mbqm((a + p->a_offset) * ((int32_t)1 << p->left_shift), p->a_mult, p->a_shift);
    const int32_t scaled_b = mr_mbqm((b + p->b_offset) * ((int32_t)1 << p->left_shift), p->b_mult, p->b_shift);
    const int32_t raw = mr_mbqm(scaled_a + scaled_b, p->out_mult, p->out_shift) + p->out_offset;
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

static inline float mr_add_f(const mr_addsub_f32_params *p, float a, float b)
{
    const float raw = a + b;
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

#if MR_DSP
/*
 * DSP cores: the three MultiplyByQuantizedMultiplier steps as one SMLAL each (mr_requant_q, simd.h; the same
 * values as mr_mbqm, whose saturating case needs a multiplier of INT32_MIN, which TFLite never makes), their
 * constants made once per call. The shifted inputs fit 29 bits. out[io] is written after a[ia] and b[ib] are
 * read, so out may be a.
 */
void mr_add_s8(const mr_addsub_q_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t a_off = p->a_offset, b_off = p->b_offset, ls = p->left_shift, out_off = p->out_offset;
    const int32_t lo = p->act_min, hi = p->act_max;
    mr_requant_dsp qa, qb, qo;
    mr_requant_q_of(p->a_mult, p->a_shift, &qa);
    mr_requant_q_of(p->b_mult, p->b_shift, &qb);
    mr_requant_q_of(p->out_mult, p->out_shift, &qo);
    MR_BROADCAST_LOOP(&p->bc, p->size, {
        const int32_t sa = mr_requant_q((a[ia] + a_off) * ((int32_t)1 << ls), &qa);
        const int32_t sb = mr_requant_q((b[ib] + b_off) * ((int32_t)1 << ls), &qb);
        const int32_t v = __ssat(mr_requant_q(sa + sb, &qo) + out_off, 8);
        out[io] = (int8_t)MR_CLAMP(v, lo, hi);
    });
}
#else
void mr_add_s8(const mr_addsub_q_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int8_t)mr_add_q(p, a[ia], b[ib]));
}
#endif

void mr_add_s16(const mr_addsub_q_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int16_t)mr_add_q(p, a[ia], b[ib]));
}

void mr_add_f32(const mr_addsub_f32_params *p, const float *a, const float *b, float *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = mr_add_f(p, a[ia], b[ib]));
}
