/* GRU kernel (micro_relay/gru.h): one batch row at a time; scratch holds the input gates gx[3S], the recurrent
 * ones gh[3S] and r * h[S]. */
#include <math.h>
#include <string.h>

#include "micro_relay/gru.h"

/* out[o] = sum_d x[d] * w[o][d] + bias[o], summed from 0 in input order */
static void dot(const float *x, const float *w, const float *bias, int32_t depth, int32_t units, float *out)
{
    int32_t o, d;
    for (o = 0; o < units; ++o) {
        const float *row = w + o * depth;
        float total = 0.0f;
        for (d = 0; d < depth; ++d) {
            total += x[d] * row[d];
        }
        out[o] = total + bias[o];
    }
}

static float sigmoid(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

int mr_gru_f32(const mr_gru_f32_params *p, const float *in, const float *w, const float *r, const float *wb,
               const float *rb, const float *h0, float *out, float *h, float *scratch)
{
    const int32_t s = p->units;
    float *gx = scratch, *gh = scratch + 3 * s, *rh = scratch + 6 * s;
    int32_t b, t, j;
    memmove(h, h0, (size_t)(p->batch * s) * sizeof *h);
    for (b = 0; b < p->batch; ++b) {
        float *hb = h + b * s;
        for (t = 0; t < p->time; ++t) {
            const int32_t row = p->time_major ? t * p->batch + b : b * p->time + t;
            dot(in + row * p->input_size, w, wb, p->input_size, 3 * s, gx);
            dot(hb, r, rb, s, p->linear_before_reset ? 3 * s : 2 * s, gh);
            for (j = 0; j < s; ++j) {
                gx[j] = sigmoid(gx[j] + gh[j]);              /* z */
                gx[s + j] = sigmoid(gx[s + j] + gh[s + j]);  /* r */
            }
            if (p->linear_before_reset) {
                for (j = 0; j < s; ++j) {
                    gx[2 * s + j] = tanhf(gx[2 * s + j] + gx[s + j] * gh[2 * s + j]);
                }
            } else {
                for (j = 0; j < s; ++j) {
                    rh[j] = gx[s + j] * hb[j];
                }
                dot(rh, r + 2 * s * s, rb + 2 * s, s, s, gh + 2 * s);
                for (j = 0; j < s; ++j) {
                    gx[2 * s + j] = tanhf(gx[2 * s + j] + gh[2 * s + j]);
                }
            }
            for (j = 0; j < s; ++j) {
                hb[j] = (1.0f - gx[j]) * gx[2 * s + j] + gx[j] * hb[j];
            }
            memcpy(out + row * s, hb, (size_t)s * sizeof *hb);
        }
    }
    return MR_OK;
}
