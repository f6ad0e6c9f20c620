/* The comparisons, bit-exact with TFLite Micro's comparisons kernel (R/comparisons.h). */
#include "micro_relay/compare.h"
#include "micro_relay/fixedpoint.h"

/* MultiplyByQuantizedMultiplierSmallerThanOneExp((q - zp) << left_shift, M, s): |q - zp| << 8 fits 17 bits. */
static inline int32_t mr_compare_a(const mr_compare_s8_params *p, int32_t q)
{
    return mr_mbqm((q + p->a_offset) * ((int32_t)1 << p->left_shift), p->a_mult, p->a_shift);
}

static inline int32_t mr_compare_b(const mr_compare_s8_params *p, int32_t q)
{
    return mr_mbqm((q + p->b_offset) * ((int32_t)1 << p->left_shift), p->b_mult, p->b_shift);
}

#define MR_COMPARE_DEFINE(OP, C_OP)                                                           \
    int mr_##OP##_s8(const mr_compare_s8_params *p, const int8_t *a, const int8_t *b, uint8_t *out) \
    {                                                                                         \
        MR_BROADCAST_LOOP(&p->bc, p->size,                                                    \
                          out[io] = (uint8_t)(mr_compare_a(p, a[ia]) C_OP mr_compare_b(p, b[ib]))); \
        return MR_OK;                                                                         \
    }                                                                                         \
    int mr_##OP##_s32(const mr_binary_params *p, const int32_t *a, const int32_t *b, uint8_t *out) \
    {                                                                                         \
        MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (uint8_t)(a[ia] C_OP b[ib]));            \
        return MR_OK;                                                                         \
    }                                                                                         \
    int mr_##OP##_f32(const mr_binary_params *p, const float *a, const float *b, uint8_t *out) \
    {                                                                                         \
        MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (uint8_t)(a[ia] C_OP b[ib]));            \
        return MR_OK;                                                                         \
    }

MR_COMPARE_DEFINE(equal, ==)
MR_COMPARE_DEFINE(not_equal, !=)
MR_COMPARE_DEFINE(less, <)
MR_COMPARE_DEFINE(less_equal, <=)
MR_COMPARE_DEFINE(greater, >)
MR_COMPARE_DEFINE(greater_equal, >=)

/* Bool inputs are 0 or 1, so comparing the bytes compares the truth values. */
int mr_equal_bool(const mr_binary_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (uint8_t)((a[ia] != 0) == (b[ib] != 0)));
    return MR_OK;
}

int mr_not_equal_bool(const mr_binary_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (uint8_t)((a[ia] != 0) != (b[ib] != 0)));
    return MR_OK;
}
