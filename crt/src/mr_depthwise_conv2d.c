/*
 * nn.depthwise_conv2d kernels, bit-exact with TFLite Micro's reference DEPTHWISE_CONV_2D
 * (TFLM_ARITHMETIC.md sections 2 and 8).
 *
 * int8 loop structure: batch > oy > ox (window clipped to the image once; TFLite Micro tests every tap) >
 * block of 4 output channels > in-image filter row > tap, the block's 4 accumulators in registers. A block is
 * 4 adjacent channels (depth multiplier 1) or 4 outputs of one input channel (multiplier a multiple of 4);
 * other channels go one at a time. On DSP cores, depth multiplier 1 goes batch > oy > block of 4 channels
 * (requantization constants made here) > ox instead (dw_s8_m1): still all of row oy before row oy + 1, the
 * order ops/_overlap.py relies on. Windows wholly inside the image start from the compile-time folded bias
 * (bias - in_zp * sum over taps of w) and take raw inputs; the others start from the bias and subtract the
 * zero point. Integer sums do not depend on order, so this is exact.
 * int16 and float keep TFLite Micro's order (b, oy, ox, ic, m, fy, fx) with the window clipped once; float
 * sums go fy, fx, then add the bias (0.0f when absent).
 */
#include "micro_relay/depthwise_conv2d.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/simd.h"

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

/* How the int8 kernels walk one window's in-image taps. */
typedef struct {
    int32_t rows, cols;   /* in-image filter rows and taps per row */
    int32_t x_row, x_col; /* input steps between filter rows and between taps */
    int32_t w_row, w_col; /* weight steps, likewise */
    int32_t zp;           /* subtracted from every input: 0 when the window starts from the folded bias */
} dw_walk;

#if !MR_DSP /* depth multiplier 1 on DSP cores: dw_s8_m1 below */
/*
 * Four adjacent channels with depth multiplier 1: the taps are the inner loop and the four accumulators stay
 * in registers: the loop fits a Cortex-M's register file. (A 16-channel block with the channel loop innermost
 * vectorizes on a host, but on a Cortex-M its accumulators live in memory: about 1.3x slower there.) Windows
 * inside the image take the raw inputs (their folded bias holds the zero point).
 */
static MR_CONV_NOINLINE void mac_block4(const dw_walk *k, const int8_t *x, const int8_t *w, int32_t acc[4])
{
    const int32_t zp = k->zp;
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], r, t;
    for (r = 0; r < k->rows; ++r, x += k->x_row, w += k->w_row) {
        const int8_t *xt = x, *wt = w;
        if (zp == 0) {
            for (t = 0; t < k->cols; ++t, xt += k->x_col, wt += k->w_col) {
                a0 += xt[0] * wt[0];
                a1 += xt[1] * wt[1];
                a2 += xt[2] * wt[2];
                a3 += xt[3] * wt[3];
            }
        } else {
            for (t = 0; t < k->cols; ++t, xt += k->x_col, wt += k->w_col) {
                a0 += (xt[0] - zp) * wt[0];
                a1 += (xt[1] - zp) * wt[1];
                a2 += (xt[2] - zp) * wt[2];
                a3 += (xt[3] - zp) * wt[3];
            }
        }
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}
#endif /* !MR_DSP */

/* Four adjacent output channels of one input channel (depth multiplier a multiple of 4): one input load per tap. */
static MR_CONV_NOINLINE void mac_shared4(const dw_walk *k, const int8_t *x, const int8_t *w, int32_t acc[4])
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], r, t;
    for (r = 0; r < k->rows; ++r, x += k->x_row, w += k->w_row) {
        const int8_t *xt = x, *wt = w;
        for (t = 0; t < k->cols; ++t, xt += k->x_col, wt += k->w_col) {
            const int32_t v = xt[0] - k->zp;
            a0 += v * wt[0];
            a1 += v * wt[1];
            a2 += v * wt[2];
            a3 += v * wt[3];
        }
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* One output channel reading input channel x[0]. */
static int32_t mac_1(const dw_walk *k, const int8_t *x, const int8_t *w, int32_t acc)
{
    int32_t r, t;
    for (r = 0; r < k->rows; ++r, x += k->x_row, w += k->w_row) {
        for (t = 0; t < k->cols; ++t) {
            acc += ((int32_t)x[t * k->x_col] - k->zp) * w[t * k->w_col];
        }
    }
    return acc;
}

static int8_t requantize_s8(const mr_conv2d_q_params *p, int32_t acc, int32_t oc)
{
#if MR_DSP /* the same value without the 64-bit constants (simd.h) */
    acc = mr_requant_raw(acc, p->mult[oc], p->shift[oc]) + p->out_zp;
#else
    mr_conv_requant q;
    mr_conv_requant_of(p->mult[oc], p->shift[oc], &q);
    acc = mr_conv_requantize(&q, acc) + p->out_zp;
#endif
    return (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
}

#if MR_DSP
/*
 * One tap of a block of four channels: a word of inputs and one of weights, sign-extended into the channel
 * pairs (0, 2) and (1, 3) (the inputs minus the zero point when NZ packs -zp in both lanes, SXTAB16), then one
 * 16x16 multiply-accumulate per channel (SMLABB for the bottom lanes, SMLATT for the top ones).
 */
#define DW_MAC4(XE, XO, WV)                                                                                   \
    do {                                                                                                      \
        const int32_t we_ = mr_even(WV), wo_ = mr_odd(WV);                                                  \
        a0 = __smlabb((XE), we_, a0);                                                                         \
        a2 = __smlatt((XE), we_, a2);                                                                         \
        a1 = __smlabb((XO), wo_, a1);                                                                         \
        a3 = __smlatt((XO), wo_, a3);                                                                         \
    } while (0)

/* A tap on inputs minus the zero point (NZ: -zp in both lanes) and a tap on raw inputs. */
#define DW_TAP(XP, WP, NZ)                                                                                    \
    do {                                                                                                      \
        const uint32_t xv_ = mr_load_s8x4(XP), wv_ = mr_load_s8x4(WP);                                      \
        DW_MAC4(mr_even_add((NZ), xv_), mr_odd_add((NZ), xv_), wv_);                                        \
    } while (0)

#define DW_TAP_RAW(XP, WP)                                                                                    \
    do {                                                                                                      \
        const uint32_t xv_ = mr_load_s8x4(XP), wv_ = mr_load_s8x4(WP);                                      \
        DW_MAC4(mr_even(xv_), mr_odd(xv_), wv_);                                                            \
    } while (0)

/* One output row of the depth-multiplier-1 DSP path: where it reads and which of its pixels need no border
 * handling. */
typedef struct {
    const mr_conv2d_q_params *p;
    const int8_t *image, *w;
    const int32_t *bias;
    int32_t iy0;          /* input row of filter row 0 */
    int32_t fy0, fy1;     /* in-image filter rows */
    int32_t ox_lo, ox_hi; /* [ox_lo, ox_hi): 3x3 windows wholly inside the image (empty unless the fast case) */
} dw_row;

/* The four outputs of a block: requantized, offset, clamped (one SSAT each when the range is all of int8) and
 * stored. */
static MR_ALWAYS_INLINE void store4(const dw_row *row, const mr_requant_dsp q[4], int32_t a0, int32_t a1,
                                    int32_t a2, int32_t a3, int8_t *o)
{
    const int32_t zp = row->p->out_zp, lo = row->p->act_min, hi = row->p->act_max;
    int32_t v0 = mr_requant_q(a0, &q[0]) + zp, v1 = mr_requant_q(a1, &q[1]) + zp;
    int32_t v2 = mr_requant_q(a2, &q[2]) + zp, v3 = mr_requant_q(a3, &q[3]) + zp;
    v0 = __ssat(v0, 8);
    v1 = __ssat(v1, 8);
    v2 = __ssat(v2, 8);
    v3 = __ssat(v3, 8);
    if (lo != -128 || hi != 127) {
        v0 = MR_CLAMP(v0, lo, hi);
        v1 = MR_CLAMP(v1, lo, hi);
        v2 = MR_CLAMP(v2, lo, hi);
        v3 = MR_CLAMP(v3, lo, hi);
    }
    o[0] = (int8_t)v0;
    o[1] = (int8_t)v1;
    o[2] = (int8_t)v2;
    o[3] = (int8_t)v3;
}

/*
 * Channels [oc, oc + 4) of every pixel of one output row (depth multiplier 1, DSP cores), the block's
 * requantization constants made once. A 3x3 window (no dilation) wholly inside the image starts from the
 * folded bias and takes its nine taps unrolled on raw inputs; any other window loops over its in-image taps,
 * starting from the bias and subtracting the zero point. (Border windows as nine unrolled taps with the
 * off-image ones reading the zero point measured slower on kws_ref_model.)
 */
static MR_CONV_NOINLINE void dw_block_row(const dw_row *row, int32_t oc, int8_t *out)
{
    const mr_conv2d_q_params *p = row->p;
    const mr_conv_geometry *g = &p->geo;
    const int32_t c = g->out_c, xr = g->dil_h * g->in_w * c, xc = g->dil_w * c, wr = g->k_w * c;
    const int32_t nz = mr_pack2(-p->in_zp), rows = row->fy1 - row->fy0;
    const int8_t *xrow = row->image + (row->iy0 + row->fy0 * g->dil_h) * g->in_w * c + oc;
    mr_requant_dsp q[4];
    int32_t ox, j;
    for (j = 0; j < 4; ++j) {
        mr_requant_q_of(p->mult[oc + j], p->shift[oc + j], &q[j]);
    }
    for (ox = 0; ox < g->out_w; ++ox, out += c) {
        const int32_t ix0 = ox * g->stride_w - g->pad_left;
        int32_t a0, a1, a2, a3;
        if (ox >= row->ox_lo && ox < row->ox_hi) {
            const int8_t *xp = xrow + ix0 * c, *wp = row->w + oc;
            const int32_t *f = p->folded_bias + oc;
            int32_t r;
            a0 = f[0];
            a1 = f[1];
            a2 = f[2];
            a3 = f[3];
            for (r = 0; r < 3; ++r, xp += xr, wp += wr) {
                DW_TAP_RAW(xp, wp);
                DW_TAP_RAW(xp + c, wp + c);
                DW_TAP_RAW(xp + 2 * c, wp + 2 * c);
            }
        } else {
            int32_t fx0, fx1, r, t;
            const int8_t *xp, *wp;
            mr_conv_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &fx0, &fx1);
            xp = xrow + (ix0 + fx0 * g->dil_w) * c;
            wp = row->w + row->fy0 * wr + fx0 * c + oc;
            a0 = a1 = a2 = a3 = 0;
            if (row->bias) {
                a0 = row->bias[oc];
                a1 = row->bias[oc + 1];
                a2 = row->bias[oc + 2];
                a3 = row->bias[oc + 3];
            }
            for (r = 0; r < rows; ++r, xp += xr, wp += wr) {
                const int8_t *xt = xp, *wt = wp;
                for (t = fx0; t < fx1; ++t, xt += xc, wt += c) {
                    DW_TAP(xt, wt, nz);
                }
            }
        }
        store4(row, q, a0, a1, a2, a3, out + oc);
    }
}

/* A channel left over from the blocks of four, over one output row. */
static void dw_channel_row(const dw_row *row, int32_t oc, int8_t *out)
{
    const mr_conv2d_q_params *p = row->p;
    const mr_conv_geometry *g = &p->geo;
    const int32_t c = g->out_c;
    dw_walk k;
    int32_t ox;
    k.x_row = g->dil_h * g->in_w * c;
    k.x_col = g->dil_w * c;
    k.w_row = g->k_w * c;
    k.w_col = c;
    k.zp = p->in_zp;
    k.rows = row->fy1 - row->fy0;
    for (ox = 0; ox < g->out_w; ++ox, out += c) {
        const int32_t ix0 = ox * g->stride_w - g->pad_left;
        int32_t fx0, fx1;
        mr_conv_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &fx0, &fx1);
        k.cols = fx1 - fx0;
        out[oc] = requantize_s8(p, mac_1(&k, row->image + ((row->iy0 + row->fy0 * g->dil_h) * g->in_w + ix0 +
                                                           fx0 * g->dil_w) * c + oc,
                                         row->w + row->fy0 * k.w_row + fx0 * c + oc,
                                         row->bias ? row->bias[oc] : 0), oc);
    }
}

/* Depth multiplier 1 on DSP cores: output row by output row, each row block of channels by block. */
static void dw_s8_m1(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                     int8_t *out)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t c = g->out_c, row_out = g->out_w * c;
    const int fast = g->k_h == 3 && g->k_w == 3 && g->dil_h == 1 && g->dil_w == 1 && p->folded_bias != NULL;
    dw_row row;
    int32_t b, oy, oc, lo = 0, hi = 0;
    if (fast) { /* ox * stride - pad_left >= 0 and ox * stride - pad_left + 2 < in_w */
        lo = (g->pad_left + g->stride_w - 1) / g->stride_w;
        hi = g->in_w - 3 + g->pad_left >= 0 ? (g->in_w - 3 + g->pad_left) / g->stride_w + 1 : 0;
        hi = hi > g->out_w ? g->out_w : hi;
    }
    row.p = p;
    row.w = w;
    row.bias = bias;
    for (b = 0; b < g->batches; ++b) {
        row.image = in + b * g->in_h * g->in_w * c;
        for (oy = 0; oy < g->out_h; ++oy, out += row_out) {
            row.iy0 = oy * g->stride_h - g->pad_top;
            mr_conv_tap_range(row.iy0, g->dil_h, g->k_h, g->in_h, &row.fy0, &row.fy1);
            row.ox_lo = lo;
            row.ox_hi = fast && row.fy0 == 0 && row.fy1 == 3 ? hi : lo;
            for (oc = 0; oc + 4 <= c; oc += 4) {
                dw_block_row(&row, oc, out);
            }
            for (; oc < c; ++oc) {
                dw_channel_row(&row, oc, out);
            }
        }
    }
}
#endif /* MR_DSP */

void mr_depthwise_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                            int8_t *out)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t multiplier = g->filter_c;
    dw_steps s;
    dw_walk k;
    int32_t b, oy, ox, oc, j;
    steps_of(g, &s);
    k.x_row = s.row_step;
    k.x_col = s.tap_step;
    k.w_row = s.w_row_step;
    k.w_col = s.w_tap_step;
#if MR_DSP
    if (multiplier == 1) {
        dw_s8_m1(p, in, w, bias, out);
        return;
    }
#endif
    for (b = 0; b < g->batches; ++b) {
        const int8_t *image = in + b * s.image_size;
        for (oy = 0; oy < g->out_h; ++oy) {
            for (ox = 0; ox < g->out_w; ++ox, out += g->out_c) {
                dw_window win;
                const int32_t *init;
                const int8_t *x, *wf;
                window_at(g, oy, ox, &win);
                /* windows inside the image start from bias - in_zp * sum(w) and skip the zero point */
                init = win.inside && p->folded_bias != NULL ? p->folded_bias : bias;
                k.zp = init == bias ? p->in_zp : 0;
                k.rows = win.fy1 - win.fy0;
                k.cols = win.fx1 - win.fx0;
                x = image + win.start;
                wf = w + win.fy0 * s.w_row_step + win.fx0 * s.w_tap_step;
                oc = 0;
                if (multiplier == 1 || multiplier % 4 == 0) {
                    for (; oc + 4 <= g->out_c; oc += 4) {
                        int32_t acc[4];
                        for (j = 0; j < 4; ++j) {
                            acc[j] = init ? init[oc + j] : 0;
                        }
#if !MR_DSP
                        if (multiplier == 1) {
                            mac_block4(&k, x + oc, wf + oc, acc);
                        } else
#endif
                        {
                            mac_shared4(&k, x + oc / multiplier, wf + oc, acc);
                        }
                        for (j = 0; j < 4; ++j) {
                            out[oc + j] = requantize_s8(p, acc[j], oc + j);
                        }
                    }
                }
                for (; oc < g->out_c; ++oc) {
                    out[oc] = requantize_s8(p, mac_1(&k, x + oc / multiplier, wf + oc, init ? init[oc] : 0), oc);
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
