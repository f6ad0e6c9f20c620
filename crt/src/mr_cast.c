/* cast kernel: each element is read as an int64 (integer and bool inputs, exact) or a float, then written.
 * Conversions are spelled so that none is undefined or implementation-defined in C: wrapping goes through
 * unsigned arithmetic, float-to-integer saturates before it converts. */
#include "micro_relay/cast.h"

/* The low `bits` bits of v as a two's complement value. */
static int32_t mr_wrap_signed(int64_t v, uint32_t bits)
{
    const uint32_t mask = bits == 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u);
    const uint32_t u = (uint32_t)((uint64_t)v & (uint64_t)mask);
    const uint32_t sign = 1u << (bits - 1u);
    return u < sign ? (int32_t)u : -(int32_t)(mask - u) - 1;
}

/* float to [lo, hi], truncated toward zero; NaN gives 0. */
static double mr_saturate(float x, double lo, double hi)
{
    const double v = (double)x;
    if (v != v) {
        return 0.0;
    }
    return v < lo ? lo : (v > hi ? hi : v);
}

static void mr_write_int(int32_t type, void *out, int32_t i, int64_t v)
{
    switch (type) {
    case MR_INT8: ((int8_t *)out)[i] = (int8_t)mr_wrap_signed(v, 8u); break;
    case MR_INT16: ((int16_t *)out)[i] = (int16_t)mr_wrap_signed(v, 16u); break;
    case MR_INT32: ((int32_t *)out)[i] = mr_wrap_signed(v, 32u); break;
    case MR_UINT32: ((uint32_t *)out)[i] = (uint32_t)((uint64_t)v & 0xFFFFFFFFu); break;
    case MR_FLOAT32: ((float *)out)[i] = (float)v; break;
    default: ((uint8_t *)out)[i] = (uint8_t)(v != 0); break;
    }
}

static void mr_write_float(int32_t type, void *out, int32_t i, float x)
{
    switch (type) {
    case MR_INT8: ((int8_t *)out)[i] = (int8_t)mr_saturate(x, -128.0, 127.0); break;
    case MR_INT16: ((int16_t *)out)[i] = (int16_t)mr_saturate(x, -32768.0, 32767.0); break;
    case MR_INT32: ((int32_t *)out)[i] = (int32_t)mr_saturate(x, -2147483648.0, 2147483647.0); break;
    case MR_UINT32: ((uint32_t *)out)[i] = (uint32_t)mr_saturate(x, 0.0, 4294967295.0); break;
    case MR_FLOAT32: ((float *)out)[i] = x; break;
    default: ((uint8_t *)out)[i] = (uint8_t)(x != 0.0f); break;
    }
}

int mr_cast(const mr_cast_params *p, const void *in, void *out)
{
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        switch (p->in_type) {
        case MR_INT8: mr_write_int(p->out_type, out, i, ((const int8_t *)in)[i]); break;
        case MR_INT16: mr_write_int(p->out_type, out, i, ((const int16_t *)in)[i]); break;
        case MR_INT32: mr_write_int(p->out_type, out, i, ((const int32_t *)in)[i]); break;
        case MR_UINT32: mr_write_int(p->out_type, out, i, (int64_t)((const uint32_t *)in)[i]); break;
        case MR_FLOAT32: mr_write_float(p->out_type, out, i, ((const float *)in)[i]); break;
        default: mr_write_int(p->out_type, out, i, ((const uint8_t *)in)[i] != 0u); break;
        }
    }
    return MR_OK;
}
