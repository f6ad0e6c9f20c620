/* sigmoid kernels, bit-exact with TFLite Micro's reference LOGISTIC (TFLM_ARITHMETIC.md sections 5, 8). */
#include <math.h>

#include "micro_relay/sigmoid.h"
#include "micro_relay/gemmlowp.h"

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
