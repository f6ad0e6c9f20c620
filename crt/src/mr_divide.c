/* divide kernels, bit-exact with TFLite Micro's DIV (R/div.h DivElementwise). */
#include "micro_relay/divide.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/gemmlowp.h"

/* GCC's __builtin_clrsb, which TFLite Micro's CountLeadingSignBits is there: 31 for 0. */
static inline int mr_clrsb(int32_t x)
{
    const uint32_t magnitude = x < 0 ? ~(uint32_t)x : (uint32_t)x;
    return mr_gl_clz(magnitude) - 1;
}

/*
 * The quotient x / y: y made positive, 1/y from GetReciprocal, x normalized by its headroom h. Prepare keeps the
 * shift in [7, 23], so the final RoundingDivideByPOT takes 0..31 bits for every |x|, |y| <= 255. y == 0 (a
 * divisor equal to its zero point, outside TFLite Micro's contract) gives the output zero point.
 */
static inline int32_t mr_divide_q(const mr_divide_s8_params *p, int32_t a, int32_t b)
{
    int32_t x = a + p->a_offset, y = b + p->b_offset, inv, quotient, raw;
    int bits, headroom;
    if (y == 0) {
        return MR_CLAMP(p->out_offset, p->act_min, p->act_max);
    }
    if (y < 0) {
        x = -x;
        y = -y;
    }
    inv = mr_gl_reciprocal(y, 31, &bits);
    headroom = mr_clrsb(x);
    quotient = x == 0 ? 0 : mr_srdhm((int32_t)((uint32_t)x << headroom), inv); /* x = -1 reaches INT32_MIN */
    raw = mr_rdbpot(mr_srdhm(quotient, p->mult), headroom + bits - p->shift) + p->out_offset;
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

int mr_divide_s8(const mr_divide_s8_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int8_t)mr_divide_q(p, a[ia], b[ib]));
    return MR_OK;
}

/* C's truncating division; a zero divisor (a crash in TFLite Micro) gives 0, INT32_MIN / -1 wraps. */
static inline int32_t mr_divide_i(const mr_divide_s32_params *p, int32_t a, int32_t b)
{
    const int32_t q = b == 0 ? 0 : (b == -1 ? (int32_t)(0u - (uint32_t)a) : a / b);
    return MR_CLAMP(q, p->act_min, p->act_max);
}

int mr_divide_s32(const mr_divide_s32_params *p, const int32_t *a, const int32_t *b, int32_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = mr_divide_i(p, a[ia], b[ib]));
    return MR_OK;
}

int mr_divide_f32(const mr_addsub_f32_params *p, const float *a, const float *b, float *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, {
        const float raw = a[ia] / b[ib];
        out[io] = MR_CLAMP(raw, p->act_min, p->act_max);
    });
    return MR_OK;
}
