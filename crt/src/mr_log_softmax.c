/* nn.log_softmax kernel (float32), per row: shift by the maximum so exp cannot overflow, sum the exps in
 * order, subtract the log of the sum. out may be in (each element is read before it is written). */
#include <float.h>
#include <math.h>

#include "micro_relay/log_softmax.h"

int mr_log_softmax_f32(const mr_log_softmax_f32_params *p, const float *in, float *out)
{
    int32_t r, c;
    for (r = 0; r < p->rows; ++r) {
        const float *x = in + r * p->depth;
        float *y = out + r * p->depth;
        float mx = -FLT_MAX;
        float sum = 0.0f;
        float log_sum;
        for (c = 0; c < p->depth; ++c) {
            mx = MR_MAX(mx, x[c]);
        }
        for (c = 0; c < p->depth; ++c) {
            sum += expf(x[c] - mx);
        }
        log_sum = logf(sum);
        for (c = 0; c < p->depth; ++c) {
            y[c] = (x[c] - mx) - log_sum;
        }
    }
    return MR_OK;
}
