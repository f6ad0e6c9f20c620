/* tanh kernels, bit-exact with TFLite Micro's reference TANH (TFLM_ARITHMETIC.md section 5). */
#include <math.h>

#include "micro_relay/tanh.h"
#include "micro_relay/gemmlowp.h"
#include "micro_relay/sigmoid_table.h"

int mr_tanh_s8(const mr_tanh_s8_params *p, const int8_t *in, int8_t *out)
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
            y = mr_rdbpot(mr_gl_tanh(mr_mbqm(x, p->mult, p->shift), 4), 24);
            y = MR_CLAMP(y, INT8_MIN, INT8_MAX);
        }
        out[i] = (int8_t)y;
    }
    return MR_OK;
}

/* TFLite Micro's int16 TANH: the sigmoid table at 8 fraction bits, 2 sigmoid(2x) - 1, mirrored for x < 0. */
int mr_tanh_s16(const mr_tanh_s16_params *p, const int16_t *in, int16_t *out)
{
    const int32_t rounding = p->shift > 0 ? (int32_t)1 << (p->shift - 1) : 0;
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t x = ((int32_t)in[i] * p->mult + rounding) >> p->shift;
        const uint32_t ax = (uint32_t)(x < 0 ? -x : x);
        const uint32_t h = ax >> 8;
        int32_t r;
        if (h >= 255u) {
            r = 0xFFFF << 8;
        } else {
            const uint32_t ua = mr_sigmoid_table[h];
            const uint32_t ub = mr_sigmoid_table[h + 1u];
            r = (int32_t)((ua << 8) + (ax & 0xFFu) * (ub - ua));
        }
        r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
        out[i] = (int16_t)(r >> 8);
    }
    return MR_OK;
}

int mr_tanh_f32(const mr_tanh_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = tanhf(in[i]);
    }
    return MR_OK;
}
