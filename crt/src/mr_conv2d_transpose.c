/*
 * nn.conv2d_transpose kernels, bit-exact with TFLite Micro's reference TRANSPOSE_CONV
 * (TFLM_ARITHMETIC.md sections 7 and 8).
 *
 * TFLite Micro scatters in the loop order (b, iy, ix, ic, fy, fx, oc) into a zeroed accumulator, then adds
 * the bias and requantizes. Here the taps of each input pixel are clipped to the output once and the loop
 * order is (b, iy, ix, fy, fx, oc, ic), so the innermost loop reads contiguous input channels and weights.
 * Integer sums do not depend on order. For floats, every output element still receives its terms in
 * TFLite Micro's order: input pixels in (iy, ix) order, each one's channels in ic order.
 */
#include "micro_relay/conv2d_transpose.h"
#include "micro_relay/fixedpoint.h"

/* The taps [fy0, fy1) x [fx0, fx1) of input pixel (iy, ix) that land inside the output. */
typedef struct {
    int32_t fy0, fy1, fx0, fx1;
    int32_t oy0, ox0; /* output position of tap (0, 0) */
} scatter_window;

static void window_of(const mr_conv_geometry *g, int32_t iy, int32_t ix, scatter_window *win)
{
    win->oy0 = iy * g->stride_h - g->pad_top;
    win->ox0 = ix * g->stride_w - g->pad_left;
    mr_conv_tap_range(win->oy0, 1, g->k_h, g->out_h, &win->fy0, &win->fy1);
    mr_conv_tap_range(win->ox0, 1, g->k_w, g->out_w, &win->fx0, &win->fx1);
}

int mr_conv2d_transpose_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                           int8_t *out, int32_t *scratch)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t filter_size = g->k_h * g->k_w * g->in_c;
    const int32_t count = g->batches * g->out_h * g->out_w * g->out_c;
    int32_t b, iy, ix, fy, fx, oc, ic, i;
    for (i = 0; i < count; ++i) {
        scratch[i] = 0;
    }
    for (b = 0; b < g->batches; ++b) {
        for (iy = 0; iy < g->in_h; ++iy) {
            for (ix = 0; ix < g->in_w; ++ix) {
                const int8_t *x = in + ((b * g->in_h + iy) * g->in_w + ix) * g->in_c;
                scatter_window win;
                window_of(g, iy, ix, &win);
                for (fy = win.fy0; fy < win.fy1; ++fy) {
                    for (fx = win.fx0; fx < win.fx1; ++fx) {
                        int32_t *acc = scratch + ((b * g->out_h + win.oy0 + fy) * g->out_w + win.ox0 + fx) * g->out_c;
                        const int8_t *wt = w + (fy * g->k_w + fx) * g->in_c;
                        for (oc = 0; oc < g->out_c; ++oc) {
                            const int8_t *wo = wt + oc * filter_size;
                            int32_t sum = 0;
                            for (ic = 0; ic < g->in_c; ++ic) {
                                sum += ((int32_t)x[ic] - p->in_zp) * wo[ic];
                            }
                            acc[oc] += sum;
                        }
                    }
                }
            }
        }
    }
    for (i = 0; i < count; i += g->out_c) {
        for (oc = 0; oc < g->out_c; ++oc) {
            int32_t acc = scratch[i + oc] + (bias ? bias[oc] : 0);
            acc = (p->single_round ? mr_requant_single(acc, p->mult[oc], p->shift[oc])
                                   : mr_mbqm(acc, p->mult[oc], p->shift[oc])) + p->out_zp;
            out[i + oc] = (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
        }
    }
    return MR_OK;
}

int mr_conv2d_transpose_s16_wide(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w,
                                 const int64_t *bias, int16_t *out, int64_t *scratch)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t filter_size = g->k_h * g->k_w * g->in_c;
    const int32_t count = g->batches * g->out_h * g->out_w * g->out_c;
    int32_t b, iy, ix, fy, fx, oc, ic, i;
    for (i = 0; i < count; ++i) {
        scratch[i] = 0;
    }
    for (b = 0; b < g->batches; ++b) {
        for (iy = 0; iy < g->in_h; ++iy) {
            for (ix = 0; ix < g->in_w; ++ix) {
                const int16_t *x = in + ((b * g->in_h + iy) * g->in_w + ix) * g->in_c;
                scatter_window win;
                window_of(g, iy, ix, &win);
                for (fy = win.fy0; fy < win.fy1; ++fy) {
                    for (fx = win.fx0; fx < win.fx1; ++fx) {
                        int64_t *acc = scratch + ((b * g->out_h + win.oy0 + fy) * g->out_w + win.ox0 + fx) * g->out_c;
                        const int8_t *wt = w + (fy * g->k_w + fx) * g->in_c;
                        for (oc = 0; oc < g->out_c; ++oc) {
                            const int8_t *wo = wt + oc * filter_size;
                            int64_t sum = 0;
                            for (ic = 0; ic < g->in_c; ++ic) {
                                sum += (int32_t)x[ic] * wo[ic];
                            }
                            acc[oc] += sum;
                        }
                    }
                }
            }
        }
    }
    for (i = 0; i < count; i += g->out_c) {
        for (oc = 0; oc < g->out_c; ++oc) {
            const int32_t q = mr_mbqm64(scratch[i + oc] + (bias ? bias[oc] : 0), p->mult[oc], p->shift[oc]);
            out[i + oc] = (int16_t)MR_CLAMP(q, p->act_min, p->act_max);
        }
    }
    return MR_OK;
}

int mr_conv2d_transpose_f32(const mr_conv2d_f32_params *p, const float *in, const float *w, const float *bias,
                            float *out)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t filter_size = g->k_h * g->k_w * g->in_c;
    const int32_t count = g->batches * g->out_h * g->out_w * g->out_c;
    int32_t b, iy, ix, fy, fx, oc, ic, i;
    for (i = 0; i < count; ++i) {
        out[i] = 0.0f;
    }
    for (b = 0; b < g->batches; ++b) {
        for (iy = 0; iy < g->in_h; ++iy) {
            for (ix = 0; ix < g->in_w; ++ix) {
                const float *x = in + ((b * g->in_h + iy) * g->in_w + ix) * g->in_c;
                scatter_window win;
                window_of(g, iy, ix, &win);
                for (fy = win.fy0; fy < win.fy1; ++fy) {
                    for (fx = win.fx0; fx < win.fx1; ++fx) {
                        float *acc = out + ((b * g->out_h + win.oy0 + fy) * g->out_w + win.ox0 + fx) * g->out_c;
                        const float *wt = w + (fy * g->k_w + fx) * g->in_c;
                        for (oc = 0; oc < g->out_c; ++oc) {
                            const float *wo = wt + oc * filter_size;
                            float sum = acc[oc]; /* terms join the running total one by one, in ic order */
                            for (ic = 0; ic < g->in_c; ++ic) {
                                sum += x[ic] * wo[ic];
                            }
                            acc[oc] = sum;
                        }
                    }
                }
            }
        }
    }
    for (i = 0; i < count; i += g->out_c) {
        for (oc = 0; oc < g->out_c; ++oc) {
            float acc = out[i + oc];
            if (bias) {
                acc += bias[oc];
            }
            out[i + oc] = MR_MIN(MR_MAX(acc, p->act_min), p->act_max);
        }
    }
    return MR_OK;
}
