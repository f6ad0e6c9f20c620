/* squared_difference kernels, bit-exact with TFLite Micro's SQUARED_DIFFERENCE. */
#include "micro_relay/squared_difference.h"
#include "micro_relay/fixedpoint.h"

/* Rescaled inputs are below 2^14 in magnitude, so their difference squared fits int32. */
static inline int32_t mr_squared_difference_q(const mr_addsub_q_params *p, int32_t a, int32_t b)
{
    const int32_t sa = mr_mbqm((a + p->a_offset) * ((int32_t)1 << p->left_shift), p->a_mult, p->a_shift);
    const int32_t sb = mr_mbqm((b + p->b_offset) * ((int32_t)1 << p->left_shift), p->b_mult, p->b_shift);
    const int32_t d = sa - sb;
    const int32_t raw = mr_mbqm(d * d, p->out_mult, p->out_shift) + p->out_offset;
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

int mr_squared_difference_s8(const mr_addsub_q_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int8_t)mr_squared_difference_q(p, a[ia], b[ib]));
    return MR_OK;
}

int mr_squared_difference_f32(const mr_binary_params *p, const float *a, const float *b, float *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, {
        const float d = a[ia] - b[ib];
        out[io] = d * d;
    });
    return MR_OK;
}
