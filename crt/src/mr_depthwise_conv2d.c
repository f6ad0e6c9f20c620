/*
 * nn.depthwise_conv2d kernels, bit-exact with TFLite Micro's reference DEPTHWISE_CONV_2D
 * (TFLM_ARITHMETIC.md sections 2 and 8).
 *
 * Loop order is TFLite Micro's (b, oy, ox, ic, m, fy, fx) with the accumulator in a register. Each window is
 * clipped to the image once instead of testing every tap. int8 windows wholly inside the image start from
 * the compile-time folded bias (bias - in_zp * sum over taps of w) and skip the zero-point subtraction,
 * which is exact for integer sums; with depth multiplier 1 they go four channels at a time. Float sums keep
 * the order fy, fx, then add the bias (0.0f when absent).
 */
#include "micro_relay/depthwise_conv2d.h"
#include "micro_relay/fixedpoint.h"

/* The in-image taps [fy0, fy1) x [fx0, fx1) of one output pixel's window and where tap (fy0, fx0) reads. */
typedef struct {
    int32_t fy0, fy1, fx0, fx1;
    int32_t start; /* input offset of tap (fy0, fx0), channel 0, within the batch's image */
    int inside;    /* every tap reads the image */
} dw_window;

static void window_at(const mr_conv_geometry *g, int32_t oy, int32_t ox, dw_window *win)
{
    const int32_t iy0 = oy * g->stride_h - g->pad_top;
    const int32_t ix0 = ox * g->stride_w - g->pad_left;
    mr_conv_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &win->fy0, &win->fy1);
    mr_conv_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &win->fx0, &win->fx1);
    win->inside = win->fy0 == 0 && win->fy1 == g->k_h && win->fx0 == 0 && win->fx1 == g->k_w;
    if (win->fy0 == win->fy1 || win->fx0 == win->fx1) {
        win->fy1 = win->fy0; /* no tap reads the image */
        win->start = 0;
        return;
    }
    win->start = ((iy0 + win->fy0 * g->dil_h) * g->in_w + ix0 + win->fx0 * g->dil_w) * g->in_c;
}

/* Steps shared by the kernels: input between filter rows and taps, weights between filter rows and taps. */
typedef struct {
    int32_t row_step, tap_step, w_row_step, w_tap_step, image_size;
} dw_steps;

static void steps_of(const mr_conv_geometry *g, dw_steps *s)
{
    s->row_step = g->dil_h * g->in_w * g->in_c;
    s->tap_step = g->dil_w * g->in_c;
    s->w_row_step = g->k_w * g->out_c;
    s->w_tap_step = g->out_c;
    s->image_size = g->in_h * g->in_w * g->in_c;
}

static int8_t requantize_s8(const mr_conv2d_q_params *p, int32_t acc, int32_t oc)
{
    acc = mr_mbqm(acc, p->mult[oc], p->shift[oc]) + p->out_zp;
    return (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
}

/* Channels [c, c + 4) of a window inside the image with depth multiplier 1: one pass over the taps feeds
 * four accumulators from adjacent input and weight bytes, sharing the loop overhead. */
static MR_CONV_NOINLINE void inside_block4_s8(const mr_conv2d_q_params *p, const dw_steps *s,
                                              const int8_t *x_first, const int8_t *w, int32_t c, int8_t *out)
{
    const int32_t k_h = p->geo.k_h, k_w = p->geo.k_w, tap_step = s->tap_step, w_tap_step = s->w_tap_step;
    int32_t a0 = p->folded_bias[c], a1 = p->folded_bias[c + 1], a2 = p->folded_bias[c + 2];
    int32_t a3 = p->folded_bias[c + 3], fy, fx;
    for (fy = 0; fy < k_h; ++fy) {
        const int8_t *x = x_first + fy * s->row_step + c;
        const int8_t *wt = w + fy * s->w_row_step + c;
        for (fx = 0;;) { /* pointer walk that never steps past the last tap */
            a0 += (int32_t)x[0] * wt[0];
            a1 += (int32_t)x[1] * wt[1];
            a2 += (int32_t)x[2] * wt[2];
            a3 += (int32_t)x[3] * wt[3];
            if (++fx == k_w) {
                break;
            }
            x += tap_step;
            wt += w_tap_step;
        }
    }
    out[c] = requantize_s8(p, a0, c);
    out[c + 1] = requantize_s8(p, a1, c + 1);
    out[c + 2] = requantize_s8(p, a2, c + 2);
    out[c + 3] = requantize_s8(p, a3, c + 3);
}

void mr_depthwise_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                            int8_t *out)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t multiplier = g->filter_c;
    dw_steps s;
    int32_t b, oy, ox, ic, j, fy, fx;
    steps_of(g, &s);
    for (b = 0; b < g->batches; ++b) {
        for (oy = 0; oy < g->out_h; ++oy) {
            for (ox = 0; ox < g->out_w; ++ox, out += g->out_c) {
                const int8_t *image = in + b * s.image_size;
                dw_window win;
                int fold;
                window_at(g, oy, ox, &win);
                fold = win.inside && p->folded_bias != NULL;
                ic = 0;
                if (fold && multiplier == 1) {
                    for (; ic + 4 <= g->in_c; ic += 4) {
                        inside_block4_s8(p, &s, image + win.start, w, ic, out);
                    }
                }
                for (; ic < g->in_c; ++ic) {
                    const int8_t *x_first = image + win.start + ic;
                    for (j = 0; j < multiplier; ++j) {
                        const int32_t oc = ic * multiplier + j;
                        const int8_t *w_first = w + win.fy0 * s.w_row_step + win.fx0 * s.w_tap_step + oc;
                        const int32_t zp = fold ? 0 : p->in_zp;
                        int32_t acc = fold ? p->folded_bias[oc] : (bias ? bias[oc] : 0);
                        for (fy = win.fy0; fy < win.fy1; ++fy) {
                            const int8_t *x = x_first + (fy - win.fy0) * s.row_step;
                            const int8_t *wt = w_first + (fy - win.fy0) * s.w_row_step;
                            for (fx = 0; fx < win.fx1 - win.fx0; ++fx) {
                                acc += ((int32_t)x[fx * s.tap_step] - zp) * wt[fx * s.w_tap_step];
                            }
                        }
                        out[oc] = requantize_s8(p, acc, oc);
                    }
                }
            }
        }
    }
}

void mr_depthwise_conv2d_s16_wide(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w,
                                  const int64_t *bias, int16_t *out)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t multiplier = g->filter_c;
    dw_steps s;
    int32_t b, oy, ox, ic, j, fy, fx;
    steps_of(g, &s);
    for (b = 0; b < g->batches; ++b) {
        for (oy = 0; oy < g->out_h; ++oy) {
            for (ox = 0; ox < g->out_w; ++ox) {
                dw_window win;
                window_at(g, oy, ox, &win);
                for (ic = 0; ic < g->in_c; ++ic) {
                    const int16_t *x_first = in + b * s.image_size + win.start + ic;
                    for (j = 0; j < multiplier; ++j) {
                        const int32_t oc = ic * multiplier + j;
                        const int8_t *w_first = w + win.fy0 * s.w_row_step + win.fx0 * s.w_tap_step + oc;
                        int64_t acc = 0;
                        int32_t q;
                        for (fy = win.fy0; fy < win.fy1; ++fy) {
                            const int16_t *x = x_first + (fy - win.fy0) * s.row_step;
                            const int8_t *wt = w_first + (fy - win.fy0) * s.w_row_step;
                            for (fx = 0; fx < win.fx1 - win.fx0; ++fx) {
                                acc += (int32_t)x[fx * s.tap_step] * wt[fx * s.w_tap_step];
                            }
                        }
                        if (bias) {
                            acc += bias[oc];
                        }
                        q = mr_mbqm64(acc, p->mult[oc], p->shift[oc]);
                        out[oc] = (int16_t)MR_CLAMP(q, p->act_min, p->act_max);
                    }
                }
                out += g->out_c;
            }
        }
    }
}

void mr_depthwise_conv2d_f32(const mr_conv2d_f32_params *p, const float *in, const float *w, const float *bias,
                             float *out)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t multiplier = g->filter_c;
    dw_steps s;
    int32_t b, oy, ox, ic, j, fy, fx;
    steps_of(g, &s);
    for (b = 0; b < g->batches; ++b) {
        for (oy = 0; oy < g->out_h; ++oy) {
            for (ox = 0; ox < g->out_w; ++ox) {
                dw_window win;
                window_at(g, oy, ox, &win);
                for (ic = 0; ic < g->in_c; ++ic) {
                    const float *x_first = in + b * s.image_size + win.start + ic;
                    for (j = 0; j < multiplier; ++j) {
                        const int32_t oc = ic * multiplier + j;
                        const float *w_first = w + win.fy0 * s.w_row_step + win.fx0 * s.w_tap_step + oc;
                        float acc = 0.0f;
                        for (fy = win.fy0; fy < win.fy1; ++fy) {
                            const float *x = x_first + (fy - win.fy0) * s.row_step;
                            const float *wt = w_first + (fy - win.fy0) * s.w_row_step;
                            for (fx = 0; fx < win.fx1 - win.fx0; ++fx) {
                                acc += x[fx * s.tap_step] * wt[fx * s.w_tap_step];
                            }
                        }
                        acc += bias ? bias[oc] : 0.0f;
                        out[oc] = MR_MIN(MR_MAX(acc, p->act_min), p->act_max);
                    }
                }
                out += g->out_c;
            }
        }
    }
}
