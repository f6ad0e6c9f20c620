/* multiply kernels, bit-exact with TFLite Micro's reference MUL (TFLM_ARITHMETIC.md section 3). */
#include "micro_relay/multiply.h"
#include "micro_relay/fixedpoint.h"

/* The product of the offset inputs fits int32 (int16 has zero offsets), then one requantization. */
static inline int32_t mr_multiply_q(const mr_multiply_q_params *p, int32_t a, int32_t b)
{
    const int32_t product = (a + p->a_offset) * (b + p->b_offset);
    const int32_t raw = (p->single_round ? mr_requant_single(product, p->mult, p->shift)
                                         : mr_mbqm(product, p->mult, p->shift)) + p->out_offset;
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

static inline float mr_multiply_f(const mr_multiply_f32_params *p, float a, float b)
{
    const float raw = a * b;
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

int mr_multiply_s8(const mr_multiply_q_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int8_t)mr_multiply_q(p, a[ia], b[ib]));
    return MR_OK;
}

int mr_multiply_s16(const mr_multiply_q_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int16_t)mr_multiply_q(p, a[ia], b[ib]));
    return MR_OK;
}

int mr_multiply_f32(const mr_multiply_f32_params *p, const float *a, const float *b, float *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = mr_multiply_f(p, a[ia], b[ib]));
    return MR_OK;
}
