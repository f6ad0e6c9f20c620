/* sigmoid kernels, bit-exact with TFLite Micro's reference LOGISTIC (TFLM_ARITHMETIC.md sections 5, 8). */
#include <math.h>

#include "micro_relay/sigmoid.h"
#include "micro_relay/gemmlowp.h"
#include "micro_relay/sigmoid_table.h"

int mr_sigmoid_s8(const mr_sigmoid_s8_params *p, const int8_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t x = (int32_t)in[i] - p->in_zp;
        int32_t y;
        if (x <= -p->radius) {
            y = INT8_MIN;
        } else if (x >= p->radius) {
            y = INT8_MAX;
        } else {
            const int32_t q4 = mr_mbqm(x, p->mult, p->shift);
            y = mr_rdbpot(mr_gl_logistic(q4, 4), 23) - 128;
            y = MR_CLAMP(y, INT8_MIN, INT8_MAX);
        }
        out[i] = (int8_t)y;
    }
    return MR_OK;
}

/* TFLite Micro's int16 LOGISTIC: 9 fraction bits between table entries, negative inputs mirrored. */
int mr_sigmoid_s16(const mr_sigmoid_s16_params *p, const int16_t *in, int16_t *out)
{
    const int32_t rounding = p->shift > 0 ? (int32_t)1 << (p->shift - 1) : 0;
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t x = ((int32_t)in[i] * p->mult + rounding) >> p->shift;
        const uint32_t ax = (uint32_t)(x < 0 ? -x : x);
        const uint32_t h = ax >> 9;
        uint32_t r;
        if (h >= 255u) {
            r = 0x7FFFu << 10;
        } else {
            const uint32_t ua = mr_sigmoid_table[h];
            const uint32_t ub = mr_sigmoid_table[h + 1u];
            r = (ua << 9) + (ax & 0x1FFu) * (ub - ua);
        }
        r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
        out[i] = (int16_t)(r >> 10);
    }
    return MR_OK;
}

int mr_sigmoid_f32(const mr_sigmoid_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const float x = in[i];
        if (x > 16.619047164916992188f) {
            out[i] = 1.0f;
        } else if (x < -9.0f) {
            out[i] = expf(x);
        } else {
            out[i] = 1.0f / (1.0f + expf(-x));
        }
    }
    return MR_OK;
}
