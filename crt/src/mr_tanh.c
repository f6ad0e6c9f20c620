/* tanh kernels, bit-exact with TFLite Micro's reference TANH (TFLM_ARITHMETIC.md section 5). */
#include <math.h>

#include "micro_relay/tanh.h"
#include "micro_relay/gemmlowp.h"

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

int mr_tanh_f32(const mr_tanh_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = tanhf(in[i]);
    }
    return MR_OK;
}
