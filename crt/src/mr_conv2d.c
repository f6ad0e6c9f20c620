/*
 * nn.conv2d kernels, bit-exact with TFLite Micro's reference CONV_2D (TFLM_ARITHMETIC.md sections 2 and 8).
 *
 * Each output pixel's window is clipped to the image once (TFLite Micro tests every tap). Within a filter
 * row the taps are read as runs: one run of (taps * channels) values when the row is contiguous in memory
 * (no dilation, one group), else one run of `filter_c` values per tap. int8 windows that lie wholly inside
 * the image start from the compile-time folded bias (bias - in_zp * sum(w)) and skip the zero-point
 * subtraction, four output channels at a time when there is one group; integer sums do not depend on
 * order, so this is exact. Float sums keep TFLite Micro's order (fy, fx, ic), then add the bias (0.0f when
 * absent), then clamp.
 */
#include "micro_relay/conv2d.h"
#include "micro_relay/fixedpoint.h"

/* The in-image part of one output pixel's window and how its filter rows are read. */
typedef struct {
    int32_t fy0, fy1;    /* in-image filter rows */
    int32_t fx0;         /* first in-image filter column */
    int32_t start;       /* input offset of tap (fy0, fx0) for group 0 */
    int32_t runs;        /* runs per filter row */
    int32_t run_len;     /* values per run */
    int inside;          /* every tap of the window reads the image */
} conv_window;

static void window_at(const mr_conv_geometry *g, int32_t oy, int32_t ox, conv_window *win)
{
    const int32_t iy0 = oy * g->stride_h - g->pad_top;
    const int32_t ix0 = ox * g->stride_w - g->pad_left;
    int32_t fx1;
    mr_conv_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &win->fy0, &win->fy1);
    mr_conv_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &win->fx0, &fx1);
    win->inside = win->fy0 == 0 && win->fy1 == g->k_h && win->fx0 == 0 && fx1 == g->k_w;
    if (win->fy0 == win->fy1 || win->fx0 == fx1) { /* no tap reads the image */
        win->fy1 = win->fy0;
        win->start = 0;
        win->runs = 0;
        win->run_len = 0;
        return;
    }
    win->start = ((iy0 + win->fy0 * g->dil_h) * g->in_w + ix0 + win->fx0 * g->dil_w) * g->in_c;
    if (g->dil_w == 1 && g->filter_c == g->in_c) {
        win->runs = 1;
        win->run_len = (fx1 - win->fx0) * g->in_c;
    } else {
        win->runs = fx1 - win->fx0;
        win->run_len = g->filter_c;
    }
}

static int32_t dot_s8(const int8_t *x, const int8_t *w, int32_t n)
{
    int32_t acc = 0, i;
    for (i = 0; i < n; ++i) {
        acc += (int32_t)x[i] * w[i];
    }
    return acc;
}

static int32_t dot_s8_offset(const int8_t *x, const int8_t *w, int32_t n, int32_t zp)
{
    int32_t acc = 0, i;
    for (i = 0; i < n; ++i) {
        acc += ((int32_t)x[i] - zp) * w[i];
    }
    return acc;
}

static int32_t dot_s16(const int16_t *x, const int8_t *w, int32_t n)
{
    int32_t acc = 0, i;
    for (i = 0; i < n; ++i) {
        acc += (int32_t)x[i] * w[i];
    }
    return acc;
}

static int64_t dot_s16_wide(const int16_t *x, const int8_t *w, int32_t n)
{
    int64_t acc = 0;
    int32_t i;
    for (i = 0; i < n; ++i) {
        acc += (int32_t)x[i] * w[i]; /* one product fits int32; the sum may not */
    }
    return acc;
}

/* Adds x[i] * w[i] to acc one term at a time, in order (float sums depend on it). */
static float dot_f32(float acc, const float *x, const float *w, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; ++i) {
        acc += x[i] * w[i];
    }
    return acc;
}

/* Steps through the input and the filter shared by the kernels below. */
typedef struct {
    int32_t per_group;   /* output channels per group */
    int32_t row_step;    /* input step between filter rows */
    int32_t tap_step;    /* input step between taps of a filter row */
    int32_t filter_row;  /* weights per filter row */
    int32_t filter_size; /* weights per output channel */
    int32_t image_size;  /* input values per batch */
} conv_steps;

static void steps_of(const mr_conv_geometry *g, conv_steps *s)
{
    s->per_group = g->out_c / (g->in_c / g->filter_c);
    s->row_step = g->dil_h * g->in_w * g->in_c;
    s->tap_step = g->dil_w * g->in_c;
    s->filter_row = g->k_w * g->filter_c;
    s->filter_size = g->k_h * s->filter_row;
    s->image_size = g->in_h * g->in_w * g->in_c;
}

/* Four dot products of x with the rows w, w + w_step, w + 2 w_step, w + 3 w_step, added to acc: each input
 * value is loaded once for four output channels (5 loads per 4 multiply-accumulates instead of 8). */
static MR_CONV_NOINLINE void dot4_s8(const int8_t *x, const int8_t *w, int32_t w_step, int32_t n, int32_t acc[4])
{
    const int8_t *w0 = w, *w1 = w + w_step, *w2 = w1 + w_step, *w3 = w2 + w_step;
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], i;
    for (i = 0; i < n; ++i) {
        const int32_t v = x[i];
        a0 += v * w0[i];
        a1 += v * w1[i];
        a2 += v * w2[i];
        a3 += v * w3[i];
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

static int8_t requantize_s8(const mr_conv2d_q_params *p, int32_t acc, int32_t oc)
{
    acc = mr_mbqm(acc, p->mult[oc], p->shift[oc]) + p->out_zp;
    return (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
}

void mr_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out)
{
    const mr_conv_geometry *g = &p->geo;
    conv_steps s;
    int32_t b, oy, ox, oc, fy, r, k;
    steps_of(g, &s);
    for (b = 0; b < g->batches; ++b) {
        const int8_t *image = in + b * s.image_size;
        for (oy = 0; oy < g->out_h; ++oy) {
            for (ox = 0; ox < g->out_w; ++ox, out += g->out_c) {
                conv_window win;
                int fold;
                window_at(g, oy, ox, &win);
                fold = win.inside && p->folded_bias != NULL;
                oc = 0;
                if (fold && s.per_group == g->out_c) { /* one group: blocks of four channels share input loads */
                    for (; oc + 4 <= g->out_c; oc += 4) {
                        const int8_t *w_first = w + oc * s.filter_size;
                        int32_t acc[4];
                        for (k = 0; k < 4; ++k) {
                            acc[k] = p->folded_bias[oc + k];
                        }
                        for (fy = 0; fy < g->k_h; ++fy) {
                            for (r = 0; r < win.runs; ++r) {
                                dot4_s8(image + win.start + fy * s.row_step + r * s.tap_step,
                                        w_first + fy * s.filter_row + r * g->filter_c, s.filter_size, win.run_len, acc);
                            }
                        }
                        for (k = 0; k < 4; ++k) {
                            out[oc + k] = requantize_s8(p, acc[k], oc + k);
                        }
                    }
                }
                for (; oc < g->out_c; ++oc) {
                    const int8_t *x_first = image + win.start + (oc / s.per_group) * g->filter_c;
                    const int8_t *w_first = w + oc * s.filter_size + win.fy0 * s.filter_row + win.fx0 * g->filter_c;
                    int32_t acc = fold ? p->folded_bias[oc] : (bias ? bias[oc] : 0);
                    for (fy = win.fy0; fy < win.fy1; ++fy) {
                        const int8_t *x = x_first + (fy - win.fy0) * s.row_step;
                        const int8_t *wt = w_first + (fy - win.fy0) * s.filter_row;
                        for (r = 0; r < win.runs; ++r) {
                            const int8_t *xr = x + r * s.tap_step;
                            const int8_t *wr = wt + r * g->filter_c;
                            acc += fold ? dot_s8(xr, wr, win.run_len) : dot_s8_offset(xr, wr, win.run_len, p->in_zp);
                        }
                    }
                    out[oc] = requantize_s8(p, acc, oc);
                }
            }
        }
    }
}

void mr_conv2d_s16(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w, const int32_t *bias,
                   int16_t *out)
{
    const mr_conv_geometry *g = &p->geo;
    conv_steps s;
    int32_t b, oy, ox, oc, fy, r;
    steps_of(g, &s);
    for (b = 0; b < g->batches; ++b) {
        for (oy = 0; oy < g->out_h; ++oy) {
            for (ox = 0; ox < g->out_w; ++ox) {
                conv_window win;
                window_at(g, oy, ox, &win);
                for (oc = 0; oc < g->out_c; ++oc) {
                    const int16_t *x_first = in + b * s.image_size + win.start + (oc / s.per_group) * g->filter_c;
                    const int8_t *w_first = w + oc * s.filter_size + win.fy0 * s.filter_row + win.fx0 * g->filter_c;
                    int32_t acc = 0;
                    for (fy = win.fy0; fy < win.fy1; ++fy) {
                        const int16_t *x = x_first + (fy - win.fy0) * s.row_step;
                        const int8_t *wt = w_first + (fy - win.fy0) * s.filter_row;
                        for (r = 0; r < win.runs; ++r) {
                            acc += dot_s16(x + r * s.tap_step, wt + r * g->filter_c, win.run_len);
                        }
                    }
                    if (bias) {
                        acc += bias[oc];
                    }
                    acc = mr_mbqm(acc, p->mult[oc], p->shift[oc]);
                    *out++ = (int16_t)MR_CLAMP(acc, p->act_min, p->act_max);
                }
            }
        }
    }
}

void mr_conv2d_s16_wide(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w, const int64_t *bias,
                        int16_t *out)
{
    const mr_conv_geometry *g = &p->geo;
    conv_steps s;
    int32_t b, oy, ox, oc, fy, r;
    steps_of(g, &s);
    for (b = 0; b < g->batches; ++b) {
        for (oy = 0; oy < g->out_h; ++oy) {
            for (ox = 0; ox < g->out_w; ++ox) {
                conv_window win;
                window_at(g, oy, ox, &win);
                for (oc = 0; oc < g->out_c; ++oc) {
                    const int16_t *x_first = in + b * s.image_size + win.start + (oc / s.per_group) * g->filter_c;
                    const int8_t *w_first = w + oc * s.filter_size + win.fy0 * s.filter_row + win.fx0 * g->filter_c;
                    int64_t acc = 0;
                    int32_t q;
                    for (fy = win.fy0; fy < win.fy1; ++fy) {
                        const int16_t *x = x_first + (fy - win.fy0) * s.row_step;
                        const int8_t *wt = w_first + (fy - win.fy0) * s.filter_row;
                        for (r = 0; r < win.runs; ++r) {
                            acc += dot_s16_wide(x + r * s.tap_step, wt + r * g->filter_c, win.run_len);
                        }
                    }
                    if (bias) {
                        acc += bias[oc];
                    }
                    q = mr_mbqm64(acc, p->mult[oc], p->shift[oc]);
                    *out++ = (int16_t)MR_CLAMP(q, p->act_min, p->act_max);
                }
            }
        }
    }
}

void mr_conv2d_f32(const mr_conv2d_f32_params *p, const float *in, const float *w, const float *bias, float *out)
{
    const mr_conv_geometry *g = &p->geo;
    conv_steps s;
    int32_t b, oy, ox, oc, fy, r;
    steps_of(g, &s);
    for (b = 0; b < g->batches; ++b) {
        for (oy = 0; oy < g->out_h; ++oy) {
            for (ox = 0; ox < g->out_w; ++ox) {
                conv_window win;
                window_at(g, oy, ox, &win);
                for (oc = 0; oc < g->out_c; ++oc) {
                    const float *x_first = in + b * s.image_size + win.start + (oc / s.per_group) * g->filter_c;
                    const float *w_first = w + oc * s.filter_size + win.fy0 * s.filter_row + win.fx0 * g->filter_c;
                    float acc = 0.0f;
                    for (fy = win.fy0; fy < win.fy1; ++fy) {
                        const float *x = x_first + (fy - win.fy0) * s.row_step;
                        const float *wt = w_first + (fy - win.fy0) * s.filter_row;
                        for (r = 0; r < win.runs; ++r) {
                            acc = dot_f32(acc, x + r * s.tap_step, wt + r * g->filter_c, win.run_len);
                        }
                    }
                    acc += bias ? bias[oc] : 0.0f;
                    *out++ = MR_MIN(MR_MAX(acc, p->act_min), p->act_max);
                }
            }
        }
    }
}
