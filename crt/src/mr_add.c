/* add kernels, bit-exact with TFLite Micro's reference TFLite ADD (TFLM_ARITHMETIC.md section 3). */
#include "micro_relay/add.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/simd.h"

/* Both inputs to the common scale 2 max(s1, s2) << left_shift, then +, then to the output scale. */
static inline int32_t mr_add_q(const mr_addsub_q_params *p, int32_t a, int32_t b)
{
    int32_t raw;
    if (p->single_shift) { /* one rounding (ONNX QDQ) */
        raw = mr_addsub_single(p, a, b, 1);
    } else {
        const int32_t scaled_a = mr_mbqm((a + p->a_offset) * ((int32_t)1 << p->left_shift), p->a_mult, p->a_shift);
        const int32_t scaled_b = mr_mbqm((b + p->b_offset) * ((int32_t)1 << p->left_shift), p->b_mult, p->b_shift);
        raw = mr_mbqm(scaled_a + scaled_b, p->out_mult, p->out_shift) + p->out_offset;
    }
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

static inline float mr_add_f(const mr_addsub_f32_params *p, float a, float b)
{
    const float raw = a + b;
    return MR_CLAMP(raw, p->act_min, p->act_max);
}

#if MR_DSP
/*
 * Flat ADD (no broadcasting, int8's left shift of 20), the fast path of mr_add_s8 below. TFLite's scales give
 * the input with the larger scale a multiplier of 2^30 and shift 0 (its ratio is exactly 0.5); that input is
 * put first (the sum does not depend on the order) and rescaled exactly as x >> 1 = (v + offset) << 19 for
 * x = (v + offset) << 20, which is even. Twice the sum, s2, is what mr_requant_s0 / mr_requant_r (simd.h) take:
 * the first input adds (v + offset) << 20, one ADD of v << 20 to offset << 20 (|v + offset| <= 255); the second
 * is rescaled from 2x = (v + offset) << 21 by mr_requant_s0 (shift 0, any multiplier) or mr_requant_r (shift
 * in [-30, -1]) and added shifted left by 1; the output is mr_requant_r of s2 with its zero point folded in
 * (shift in [-22, -1]). |x| < 2^28 and |sum| < 2^29, within both helpers' range. Chosen once per call.
 */
typedef struct {
    int32_t oa, ob;      /* offset << 20, offset << 21 */
    int32_t mb, hb, rb;  /* the second input: multiplier, h (zero point 0) and r */
    int32_t mo, ho, ro;  /* the output: multiplier, h with its zero point, r */
    int32_t lo, hi;
} mr_add_flat_k;

#define MR_ADD_B_S0(v) mr_requant_s0((int32_t)(v) * ((int32_t)1 << 21) + ob, mb)
#define MR_ADD_B_R(v) mr_requant_r((int32_t)(v) * ((int32_t)1 << 21) + ob, mb, hb, rb)

/* One loop per form of the second input, with and without a clamp narrower than int8. */
#define MR_ADD_FLAT_FN(NAME, IN_B, CLAMP)                                                                   \
    static void NAME(const mr_add_flat_k *k, const int8_t *a, const int8_t *b, int8_t *out, int32_t n)      \
    {                                                                                                       \
        const int32_t oa = k->oa, ob = k->ob, mb = k->mb, hb = k->hb, rb = k->rb;                           \
        const int32_t mo = k->mo, ho = k->ho, ro = k->ro, lo = k->lo, hi = k->hi;                           \
        const int8_t *const end = out + n;                                                                  \
        (void)hb, (void)rb, (void)lo, (void)hi;                                                             \
        while (out != end) {                                                                                \
            const int32_t sa2 = (int32_t)*a++ * ((int32_t)1 << 20) + oa;                                    \
            const int32_t s2 = sa2 + IN_B(*b++) * 2;                                                        \
            int32_t v = mr_ssat8(mr_requant_r(s2, mo, ho, ro));                                             \
            if (CLAMP) {                                                                                    \
                v = MR_CLAMP(v, lo, hi);                                                                    \
            }                                                                                               \
            *out++ = (int8_t)v;                                                                             \
        }                                                                                                   \
    }

MR_ADD_FLAT_FN(mr_add_flat_s0, MR_ADD_B_S0, 0)
MR_ADD_FLAT_FN(mr_add_flat_r, MR_ADD_B_R, 0)
MR_ADD_FLAT_FN(mr_add_flat_s0_clamp, MR_ADD_B_S0, 1)
MR_ADD_FLAT_FN(mr_add_flat_r_clamp, MR_ADD_B_R, 1)

static int mr_add_s8_flat(const mr_addsub_q_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    mr_add_flat_k k;
    int32_t oa = p->a_offset, ob = p->b_offset, mb = p->b_mult, sb = p->b_shift;
    if (p->bc.rank != 0 || p->left_shift != 20 || p->out_shift > -1 || p->out_shift < -22 ||
        p->out_offset < -128 || p->out_offset > 128) {
        return 0;
    }
    if (p->a_mult != (int32_t)1 << 30 || p->a_shift != 0) { /* the input with multiplier 2^30, shift 0 first */
        const int8_t *t = a;
        if (p->b_mult != (int32_t)1 << 30 || p->b_shift != 0) {
            return 0;
        }
        a = b, b = t, oa = ob, ob = p->a_offset, mb = p->a_mult, sb = p->a_shift;
    }
    if (sb > 0 || sb < -30 || mb == INT32_MIN) {
        return 0;
    }
    k.oa = oa * ((int32_t)1 << 20);
    k.ob = ob * ((int32_t)1 << 21);
    k.mb = mb;
    k.rb = -sb;
    k.hb = sb < 0 ? mr_requant_r_h(-sb, 0) : 0;
    k.mo = p->out_mult;
    k.ro = -p->out_shift;
    k.ho = mr_requant_r_h(k.ro, p->out_offset);
    k.lo = p->act_min;
    k.hi = p->act_max;
    if (k.lo <= -128 && k.hi >= 127) {
        (sb == 0 ? mr_add_flat_s0 : mr_add_flat_r)(&k, a, b, out, p->size);
    } else {
        (sb == 0 ? mr_add_flat_s0_clamp : mr_add_flat_r_clamp)(&k, a, b, out, p->size);
    }
    return 1;
}

/*
 * DSP cores: the flat fast path above when it applies; otherwise the three MultiplyByQuantizedMultiplier steps
 * as one SMLAL each (mr_requant_q, simd.h; the same values as mr_mbqm, whose saturating case needs a multiplier
 * of INT32_MIN, which TFLite never makes), their constants made once per call. The shifted inputs fit 29 bits.
 * out[io] is written after a[ia] and b[ib] are read, so out may be a (or b).
 */
int mr_add_s8(const mr_addsub_q_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t a_off = p->a_offset, b_off = p->b_offset, ls = p->left_shift, out_off = p->out_offset;
    const int32_t lo = p->act_min, hi = p->act_max;
    mr_requant_dsp qa, qb, qo;
    if (p->single_shift) { /* one rounding (ONNX QDQ): the portable arithmetic */
        MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int8_t)mr_add_q(p, a[ia], b[ib]));
        return MR_OK;
    }
    if (mr_add_s8_flat(p, a, b, out)) {
        return MR_OK;
    }
    mr_requant_q_of(p->a_mult, p->a_shift, &qa);
    mr_requant_q_of(p->b_mult, p->b_shift, &qb);
    mr_requant_q_of(p->out_mult, p->out_shift, &qo);
    MR_BROADCAST_LOOP(&p->bc, p->size, {
        const int32_t sa = mr_requant_q((a[ia] + a_off) * ((int32_t)1 << ls), &qa);
        const int32_t sb = mr_requant_q((b[ib] + b_off) * ((int32_t)1 << ls), &qb);
        const int32_t v = mr_ssat8(mr_requant_q(sa + sb, &qo) + out_off);
        out[io] = (int8_t)MR_CLAMP(v, lo, hi);
    });
    return MR_OK;
}
#else
int mr_add_s8(const mr_addsub_q_params *p, const int8_t *a, const int8_t *b, int8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int8_t)mr_add_q(p, a[ia], b[ib]));
    return MR_OK;
}
#endif

int mr_add_s16(const mr_addsub_q_params *p, const int16_t *a, const int16_t *b, int16_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (int16_t)mr_add_q(p, a[ia], b[ib]));
    return MR_OK;
}

int mr_add_f32(const mr_addsub_f32_params *p, const float *a, const float *b, float *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = mr_add_f(p, a[ia], b[ib]));
    return MR_OK;
}
