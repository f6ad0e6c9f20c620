/*
 * nn.conv2d kernels, bit-exact with TFLite Micro's reference CONV_2D (TFLM_ARITHMETIC.md sections 2 and 8).
 *
 * int8 loop structure (mr_conv2d_s8_portable, built for every core; mr_conv2d_dsp.c's mr_conv2d_s8 and its _pw8
 * and _pw16 forms call it, or on cores with the DSP extension override it with their own loops):
 *   pointwise (1x1, stride 1, no padding, one group), a matrix product:
 *     tile of 16 pixels > block of 4 output channels (requantization constants made here) > pixel >
 *     one pass over the pixel's input channels feeding 4 accumulators (mac_1x4)
 *   any other window:
 *     batch > oy > ox (window clipped to the image once; TFLite Micro tests every tap) > group >
 *     block of 4 output channels > in-image filter row > run > the run's inputs feeding 4 accumulators
 *   A run is one filter row's (taps * channels) values when the row is contiguous in memory (no dilation, one
 *   group), else one tap's filter_c values. Channels left over from the blocks of four go one at a time.
 * Windows wholly inside the image start from the compile-time folded bias (bias - in_zp * sum(w)) and take raw
 * inputs; the others start from the bias and subtract the zero point. Integer sums do not depend on order, so
 * this is exact. int16: batch > oy > ox > output channel > filter row > run. float: the same with blocks of 4
 * output channels of one group (each input loaded once for four products); every sum keeps TFLite Micro's
 * order (fy, fx, ic), then adds the bias (0.0f when absent), then clamps.
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

/*
 * Adds x[i] * w_k[i] to acc[k] for four filters w_k = w + k * stride, one term at a time and in order for each,
 * so each sum is the one dot_f32 would make: each input is loaded once for four products. Not inlined: on its
 * own it keeps its five pointers and four sums in registers (inlined, gcc -Os spilled them to the stack).
 */
__attribute__((noinline)) static void dot4_f32(float acc[4], const float *x, const float *w, int32_t stride,
                                               int32_t n)
{
    float a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const float *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
    int32_t i;
    for (i = 0; i + 1 < n; i += 2) { /* two terms per pass: fewer loop instructions, the same order */
        const float xa = x[i], xb = x[i + 1];
        a0 += xa * w[i];
        a0 += xb * w[i + 1];
        a1 += xa * w1[i];
        a1 += xb * w1[i + 1];
        a2 += xa * w2[i];
        a2 += xb * w2[i + 1];
        a3 += xa * w3[i];
        a3 += xb * w3[i + 1];
    }
    if (i < n) {
        const float xi = x[i];
        a0 += xi * w[i];
        a1 += xi * w1[i];
        a2 += xi * w2[i];
        a3 += xi * w3[i];
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
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

/*
 * Products are formed two ways. Windows inside the image use raw inputs (the folded bias holds the zero
 * point): four accumulators in registers, as cheap as it gets on a Cortex-M. Windows that cross the border
 * use (int16)(x - zp), which is exact since x - zp lies in [-255, 255] (prepare checks the zero point); an
 * int16 operand whose range GCC cannot narrow lets x86 -O2 use 16-bit multiply-add-pairs. Each loop runs
 * first over a length rounded down to a multiple of 16, which GCC -O2 vectorizes (its cheap cost model
 * wants no scalar tail), then over the rest. The int32 sums wrap like TFLite Micro's; their order does not
 * matter.
 */
#define MR_MAC4(v, i)                                                                                          \
    do {                                                                                                       \
        a0 += (v) * w[i];                                                                                      \
        a1 += (v) * w1[i];                                                                                     \
        a2 += (v) * w2[i];                                                                                     \
        a3 += (v) * w3[i];                                                                                     \
    } while (0)

/* Adds n inputs times four filters' runs (w, w + w_step, ...) to acc: each input is loaded once for four
 * output channels, and the loop's 13 live values fit a Cortex-M's registers (a 2-pixel x 4-channel block
 * would halve the weight loads but spills its accumulators there). */
static MR_CONV_NOINLINE void mac_1x4(const int8_t *x, const int8_t *w, int32_t w_step, int32_t n, int16_t zp,
                                     int32_t acc[4])
{
    const int8_t *w1 = w + w_step, *w2 = w1 + w_step, *w3 = w2 + w_step;
    const int32_t n16 = n & ~15;
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], i;
    if (zp == 0) {
        for (i = 0; i < n16; ++i) {
            const int32_t v = x[i];
            MR_MAC4(v, i);
        }
        for (; i < n; ++i) {
            const int32_t v = x[i];
            MR_MAC4(v, i);
        }
    } else {
        for (i = 0; i < n16; ++i) {
            const int16_t v = (int16_t)(x[i] - zp);
            MR_MAC4(v, i);
        }
        for (; i < n; ++i) {
            const int16_t v = (int16_t)(x[i] - zp);
            MR_MAC4(v, i);
        }
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* One output channel's run (channels left over from the blocks of four, or groups). */
static MR_CONV_NOINLINE int32_t mac_1x1(const int8_t *x, const int8_t *w, int32_t n, int16_t zp, int32_t acc)
{
    const int32_t n16 = n & ~15;
    int32_t i;
    for (i = 0; i < n16; ++i) {
        acc += (int16_t)(x[i] - zp) * w[i];
    }
    for (; i < n; ++i) {
        acc += (int16_t)(x[i] - zp) * w[i];
    }
    return acc;
}

/* acc[j] += one run of n inputs times filter j's run, for the count <= 4 filters w + j * w_step. */
static void mac_run(const int8_t *x, const int8_t *w, int32_t w_step, int32_t n, int16_t zp, int32_t count,
                    int32_t acc[4])
{
    int32_t j;
    if (count == 4) {
        mac_1x4(x, w, w_step, n, zp, acc);
        return;
    }
    for (j = 0; j < count; ++j) {
        acc[j] = mac_1x1(x, w + j * w_step, n, zp, acc[j]);
    }
}

static int8_t requantize_s8(const mr_conv2d_q_params *p, const mr_conv_requant *q, int32_t acc)
{
    acc = mr_conv_requantize(q, acc) + p->out_zp;
    return (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
}

/*
 * 1x1, stride 1, no padding, one group: a matrix product of the pixels [pixels][c] with the filters [oc][c].
 * Pixels go in tiles of MR_POINTWISE_TILE; within a tile, output channels go in blocks of four whose
 * requantization constants are made once, and each pixel of the tile runs one pass over its c inputs per
 * block. The tile's inputs and outputs stay in a data cache where there is one.
 */
static void pointwise_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                         int8_t *out)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t pixels = g->batches * g->in_h * g->in_w, c = g->in_c, out_c = g->out_c;
    const int32_t *init = p->folded_bias != NULL ? p->folded_bias : bias; /* no window crosses a border */
    const int16_t zp = (int16_t)(init == bias ? p->in_zp : 0);
    int32_t first, last, oc, n, j, px;
    for (first = 0; first < pixels; first = last) {
        last = pixels - first < MR_POINTWISE_TILE ? pixels : first + MR_POINTWISE_TILE;
        for (oc = 0; oc < out_c; oc += n) {
            mr_conv_requant q[4];
            int32_t start[4];
            n = out_c - oc < 4 ? out_c - oc : 4;
            for (j = 0; j < n; ++j) {
                mr_conv_requant_of(p->mult[oc + j], p->shift[oc + j], p->single_round, &q[j]);
                start[j] = init ? init[oc + j] : 0;
            }
            for (px = first; px < last; ++px) {
                int32_t acc[4];
                int8_t *o = out + px * out_c + oc;
                for (j = 0; j < n; ++j) {
                    acc[j] = start[j];
                }
                mac_run(in + px * c, w + oc * c, c, c, zp, n, acc);
                for (j = 0; j < n; ++j) {
                    o[j] = requantize_s8(p, &q[j], acc[j]);
                }
            }
        }
    }
}

int mr_conv2d_s8_portable(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                          int8_t *out, void *scratch)
{
    const mr_conv_geometry *g = &p->geo;
    conv_steps s;
    int32_t b, oy, ox, oc, fy, r, j, n;
    (void)scratch; /* the DSP path's */
    if (g->k_h == 1 && g->k_w == 1 && g->stride_h == 1 && g->stride_w == 1 && g->pad_top == 0 &&
        g->pad_left == 0 && g->out_h == g->in_h && g->out_w == g->in_w && g->filter_c == g->in_c) {
        pointwise_s8(p, in, w, bias, out);
        return MR_OK;
    }
    steps_of(g, &s);
    for (b = 0; b < g->batches; ++b) {
        const int8_t *image = in + b * s.image_size;
        for (oy = 0; oy < g->out_h; ++oy) {
            for (ox = 0; ox < g->out_w; ++ox, out += g->out_c) {
                conv_window win;
                const int32_t *init;
                const int8_t *x, *wf;
                int16_t zp;
                window_at(g, oy, ox, &win);
                /* windows inside the image start from bias - in_zp * sum(w) and skip the zero point */
                init = win.inside && p->folded_bias != NULL ? p->folded_bias : bias;
                zp = (int16_t)(init == bias ? p->in_zp : 0);
                x = image + win.start;
                wf = w + win.fy0 * s.filter_row + win.fx0 * g->filter_c;
                for (oc = 0; oc < g->out_c; x += g->filter_c) { /* one group at a time */
                    const int32_t group_end = oc + s.per_group;
                    for (; oc < group_end; oc += n) {
                        int32_t acc[4];
                        n = group_end - oc < 4 ? group_end - oc : 4;
                        for (j = 0; j < n; ++j) {
                            acc[j] = init ? init[oc + j] : 0;
                        }
                        for (fy = 0; fy < win.fy1 - win.fy0; ++fy) {
                            for (r = 0; r < win.runs; ++r) {
                                mac_run(x + fy * s.row_step + r * s.tap_step,
                                        wf + oc * s.filter_size + fy * s.filter_row + r * g->filter_c, s.filter_size,
                                        win.run_len, zp, n, acc);
                            }
                        }
                        for (j = 0; j < n; ++j) {
                            mr_conv_requant q;
                            mr_conv_requant_of(p->mult[oc + j], p->shift[oc + j], p->single_round, &q);
                            out[oc + j] = requantize_s8(p, &q, acc[j]);
                        }
                    }
                }
            }
        }
    }
    return MR_OK;
}

int mr_conv2d_s16(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w, const int32_t *bias,
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
    return MR_OK;
}

int mr_conv2d_s16_wide(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w, const int64_t *bias,
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
    return MR_OK;
}

int mr_conv2d_f32(const mr_conv2d_f32_params *p, const float *in, const float *w, const float *bias, float *out)
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
                for (oc = 0; oc < g->out_c;) {
                    /* four output channels of one group at a time, else one */
                    const int32_t block = oc % s.per_group + 4 <= s.per_group ? 4 : 1;
                    const float *x_first = in + b * s.image_size + win.start + (oc / s.per_group) * g->filter_c;
                    const float *w_first = w + oc * s.filter_size + win.fy0 * s.filter_row + win.fx0 * g->filter_c;
                    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                    int32_t k;
                    for (fy = win.fy0; fy < win.fy1; ++fy) {
                        const float *x = x_first + (fy - win.fy0) * s.row_step;
                        const float *wt = w_first + (fy - win.fy0) * s.filter_row;
                        for (r = 0; r < win.runs; ++r) {
                            if (block == 4) {
                                dot4_f32(acc, x + r * s.tap_step, wt + r * g->filter_c, s.filter_size, win.run_len);
                            } else {
                                acc[0] = dot_f32(acc[0], x + r * s.tap_step, wt + r * g->filter_c, win.run_len);
                            }
                        }
                    }
                    for (k = 0; k < block; ++k, ++oc) {
                        const float sum = acc[k] + (bias ? bias[oc] : 0.0f);
                        *out++ = MR_MIN(MR_MAX(sum, p->act_min), p->act_max);
                    }
                }
            }
        }
    }
    return MR_OK;
}
