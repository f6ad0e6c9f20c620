/* Layer normalization, float32, in the order ops/layer_norm.py states: a two-pass mean and variance, then
 * (x - mean) * (1 / sqrtf(var + epsilon)) * gamma + beta. */
#include <math.h>

#include "micro_relay/layer_norm.h"

int mr_layer_norm_f32(const mr_layer_norm_f32_params *p, const float *in, const float *gamma, const float *beta,
                      float *out)
{
    const float n = (float)p->inner;
    int32_t o, i;
    for (o = 0; o < p->outer; ++o) {
        const float *x = in + o * p->inner;
        float *y = out + o * p->inner;
        float sum = 0.0f, var = 0.0f, mean, inv;
        for (i = 0; i < p->inner; ++i) {
            sum += x[i];
        }
        mean = sum / n;
        for (i = 0; i < p->inner; ++i) {
            const float d = x[i] - mean;
            var += d * d;
        }
        var = var / n;
        inv = 1.0f / sqrtf(var + p->epsilon);
        for (i = 0; i < p->inner; ++i) {
            y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
        }
    }
    return MR_OK;
}
