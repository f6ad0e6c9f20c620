/*
 * nn.depthwise_conv2d kernels, bit-exact with TFLite Micro's reference DEPTHWISE_CONV_2D
 * (TFLM_ARITHMETIC.md sections 2 and 8).
 *
 * int8 loop structure: batch > oy > ox (window clipped to the image once; TFLite Micro tests every tap) >
 * block of 4 output channels > in-image filter row > tap, the block's 4 accumulators in registers. A block is
 * 4 adjacent channels (depth multiplier 1) or 4 outputs of one input channel (multiplier a multiple of 4);
 * other channels go one at a time. Windows wholly inside the image start from the compile-time folded bias
 * (bias - in_zp * sum over taps of w) and take raw inputs; the others start from the bias and subtract the
 * zero point. Integer sums do not depend on order, so this is exact. On DSP cores, the strip entry points work
 * from a zero-padded strip of the input in the arena scratch instead (dw_s8_strip, below), any depth
 * multiplier; they return MR_ERR_SCRATCH, writing nothing, when the scratch is NULL or p->scratch_bytes
 * is smaller than the strip needs.
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

#if !MR_DSP /* depth multiplier 1 on DSP cores: dw_s8_strip below */
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
    acc = mr_requant_node(acc, p->mult[oc], p->shift[oc], p->single_round) + p->out_zp;
#else
    mr_conv_requant q;
    mr_conv_requant_of(p->mult[oc], p->shift[oc], p->single_round, &q);
    acc = mr_conv_requantize(&q, acc) + p->out_zp;
#endif
    return (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
}

/*
 * The strip path on DSP cores: batch > output row > chunk of at most MR_DW_CHUNK output
 * pixels > block of 4 output channels > pixel, so all of row oy is written before row oy + 1 (the order
 * kernels/overlap.py relies on). Once per call every block's header goes to the arena scratch: its biases, its
 * requantization constants (mr_requant_zp) and whether they cover all four channels, the clamp as four bytes
 * each, and its k_h * k_w taps of weights sign-extended into channel pairs (0, 2) and (1, 3) (SXTB16). The
 * chunks' column ranges follow. Per (row, chunk, block), the input columns the chunk's windows read, k_h filter
 * rows of them, go to the strip after those, minus the zero point and extended the same way (SXTAB16,
 * dw_roll), zeros where a tap falls off the image. With multiplier 1 a block's four channels are four input
 * channels; with a multiple of 4 they share one input channel, whose value fills all four lanes, and blocks of
 * the same input channel share the strip (filled once); other multipliers, and the last block when out_c is not a
 * multiple of 4, gather each lane's input channel (dw_roll_gather). Every pixel then takes its taps with no border case:
 * two LDRDs and four 16x16 multiply-accumulates a tap (SMLABB for the bottom lanes, SMLATT for the top ones),
 * requantization with the output zero point folded in (five instructions), SSAT, the four bytes packed (BFI),
 * clamped bytewise (SSUB8 + SEL) and stored as one word. 3x3 windows without dilation run in one assembly
 * routine (dw_pixels_3x3; blocks whose channels mr_requant_zp does not cover leave their sums to C), entry
 * point mr_depthwise_conv2d_s8_strip3x3 (_x4 when out_c is a multiple of 4 and the multiplier 1 or a multiple of
 * 4: whole blocks, no gathered lanes; _fast when besides every channel is covered: no per-pixel test); other
 * windows take the C loop (dw_pixels), mr_depthwise_conv2d_s8_strip. A partial last block's pixels go to the
 * scratch's sums first (4 bytes a pixel, or raw sums), and only its lanes to the output (dw_copy_lanes).
 * Rolling strips, in every entry point, whenever p->scratch_bytes holds them (the compiler plans that size, from
 * mr_depthwise_conv2d_s8_scratch_bytes with rolling, only where the arena has room; dw_kept_rows tests it)
 * and the next output row reads rows again (no row dilation, stride_h < k_h): every
 * (chunk, strip fill) keeps its own strip across the output rows of a batch image. The first output row fills
 * all k_h rows; each later one moves rows stride_h .. k_h - 1 up to rows 0 .. k_h - 1 - stride_h (LDM/STM: half
 * an instruction a word, against 3.5 for an extension) and extends only the stride_h new rows, zeros for those
 * off the image, all in one call (dw_roll). A 3x3 window at stride 1 thus extends each input row once instead of
 * three times. Without them, one strip serves every chunk and fill, and dw_roll fills all its k_h rows (moving
 * none) every output row: the same routine, so a model links no more code for layers that roll. The strips'
 * layout, the pixel routines and the loop order are the same both ways, and so are the sums.
 * Scratch (dw_layout, mr_depthwise_conv2d_s8_scratch_bytes): out_c / 4 headers of sizeof(dw_header) bytes plus
 * the k_h * k_w taps of extended weights (2 words each), an even number of chunk descriptions, for 3x3 windows the
 * raw sums of one chunk (4 words a pixel: blocks whose constants mr_requant_zp does not cover still take their taps in
 * dw_pixels_3x3 and are requantized in C), then the strip: k_h rows of span pixels (2 words each), span =
 * (MR_DW_CHUNK - 1) * stride_w + (k_w - 1) * dil_w + 1 at most, each chunk's rows packed at its own span,
 * (count - 1) * stride_w + (k_w - 1) * dil_w + 1 pixels; rolling instead, chunk by chunk, one such strip per fill
 * unit (a block with multiplier 1, an input channel with a multiple of 4). The headers and chunks hold int32 only,
 * so they have the same size on every build: the host computes the layout the Cortex-M kernel uses.
 */

/* A block's header in the scratch, at the offsets dw_pixels_3x3 reads. */
typedef struct {
    int32_t bias[4];    /* 0 */
    mr_requant_zp q[4]; /* 16 */
    uint32_t lo4, hi4;  /* 64: act_min and act_max in every byte */
    int32_t step;       /* 72: strip bytes from one pixel to the next (8 * stride_w) */
    int32_t out_step;   /* 76: output bytes from one pixel to the next (out_c; 16 for raw sums) */
    int32_t fast;       /* 80: q holds all four channels' constants (mr_requant_zp_of) */
    int32_t raw;        /* 84: dw_pixels_3x3 stores the four sums instead (requantized in C) */
    int32_t wx[];       /* 88: weights, tap t at wx[2 t] (channels 0, 2) and wx[2 t + 1] (channels 1, 3) */
} dw_header;
/* The offsets dw_pixels_3x3 and its variants read (DW_TAP, DW_REQ, DW_REQ_R1, MR_DW_PIXELS_3X3; LDRD pairs:
 * bias[0]/[1], bias[2]/[3], q.hi/q.mult, lo4/hi4, step/out_step, and the taps' two words). */
MR_CHECK_OFFSET(dw_header, bias0, bias[0], 0);
MR_CHECK_OFFSET(dw_header, bias2, bias[2], 8);
MR_CHECK_OFFSET(dw_header, q0, q[0], 16);
MR_CHECK_OFFSET(dw_header, q1, q[1], 28);
MR_CHECK_OFFSET(dw_header, q2, q[2], 40);
MR_CHECK_OFFSET(dw_header, q3, q[3], 52);
MR_CHECK_OFFSET(dw_header, lo4, lo4, 64);
MR_CHECK_OFFSET(dw_header, hi4, hi4, 68);
MR_CHECK_OFFSET(dw_header, step, step, 72);
MR_CHECK_OFFSET(dw_header, out_step, out_step, 76);
MR_CHECK_OFFSET(dw_header, fast, fast, 80);
MR_CHECK_OFFSET(dw_header, raw, raw, 84);
MR_CHECK_OFFSET(dw_header, wx, wx, 88);
MR_STATIC_ASSERT(dw_header_size, sizeof(dw_header) == 88); /* int32 only: the same on the host (dw_layout) */

/* One chunk of an output row: how dw_roll fills its strip rows (at the offsets its assembly reads), and where
 * its pixels read and write. The same for every row and block, so made once per call. */
typedef struct {
    int32_t lo;        /* 0: zero pixels before the image's first column */
    int32_t n;         /* 4: pixels read from the image */
    int32_t zr;        /* 8: zero pixels after its last column */
    int32_t c;         /* 12: input bytes from one pixel to the next */
    int32_t nz;        /* 16: -zero point in both halves */
    int32_t x_skip;    /* 20: input bytes from the end of a row's pixels to the next row's first */
    int32_t row_bytes; /* 24: strip bytes a row, 8 * (lo + n + zr): the chunk's rows are packed */
    int32_t replicate; /* 28: one input channel in all four lanes (depth multiplier a multiple of 4) */
    int32_t x_off;     /* input offset of the first in-image column within an input row */
    int32_t count;     /* output pixels */
    int32_t out_off;   /* output offset of the first pixel within an output row */
} dw_chunk;
/* The offsets dw_roll reads. */
MR_CHECK_OFFSET(dw_chunk, lo, lo, 0);
MR_CHECK_OFFSET(dw_chunk, n, n, 4);
MR_CHECK_OFFSET(dw_chunk, zr, zr, 8);
MR_CHECK_OFFSET(dw_chunk, c, c, 12);
MR_CHECK_OFFSET(dw_chunk, nz, nz, 16);
MR_CHECK_OFFSET(dw_chunk, x_skip, x_skip, 20);
MR_CHECK_OFFSET(dw_chunk, row_bytes, row_bytes, 24);
MR_CHECK_OFFSET(dw_chunk, replicate, replicate, 28);
MR_STATIC_ASSERT(dw_chunk_size, sizeof(dw_chunk) == 44);

/* The layout of the strip path's scratch for g (the order above), one definition for the kernel and for the
 * compiler's plan (mr_depthwise_conv2d_s8_scratch_bytes). Compiled on every build. */
typedef struct {
    int32_t blocks;       /* blocks of 4 output channels, a header each */
    int32_t header_words; /* a header with its extended weights */
    int32_t chunks;       /* chunks of an output row (their descriptions are padded to an even count) */
    int32_t sum_words;    /* a raw block's sums over one chunk, 4 words a pixel: the 3x3 entry points; else 0 */
    int32_t fills;        /* strip fills a chunk: one an input channel (multiplier a multiple of 4), else one a block */
    int32_t first_span;   /* input pixels the first chunk, the widest, reads */
    int32_t spans;        /* input pixels all chunks of a row read, summed */
} dw_layout;

/* Input pixels (columns) the windows of count adjacent output pixels read. */
static MR_ALWAYS_INLINE int32_t dw_span(const mr_conv_geometry *g, int32_t count)
{
    return (count - 1) * g->stride_w + (g->k_w - 1) * g->dil_w + 1;
}

static MR_ALWAYS_INLINE dw_layout dw_layout_of(const mr_conv_geometry *g, int sums)
{
    const int32_t chunk = g->out_w < MR_DW_CHUNK ? g->out_w : MR_DW_CHUNK, rest = g->out_w % MR_DW_CHUNK;
    dw_layout l;
    l.blocks = (g->out_c + 3) / 4; /* the last one partial when out_c is not a multiple of 4 */
    l.header_words = (int32_t)(sizeof(dw_header) / 4) + 2 * g->k_h * g->k_w;
    l.chunks = (g->out_w + MR_DW_CHUNK - 1) / MR_DW_CHUNK;
    l.sum_words = sums ? 4 * chunk : 0;
    l.fills = g->filter_c % 4 == 0 ? g->in_c : l.blocks;
    l.first_span = dw_span(g, chunk);
    l.spans = g->out_w / MR_DW_CHUNK * dw_span(g, MR_DW_CHUNK) + (rest ? dw_span(g, rest) : 0);
    return l;
}

/* Bytes of scratch: headers, chunks, sums, then the strips, k_h rows of 2 words a pixel: one strip of the first
 * chunk's span that every chunk and fill reuses, or with rolling strips one per chunk and fill at its own span. */
static MR_ALWAYS_INLINE int32_t dw_scratch_of(const mr_conv_geometry *g, const dw_layout *l, int rolling)
{
    return 4 * (l->blocks * l->header_words + l->sum_words) + (int32_t)sizeof(dw_chunk) * (l->chunks + l->chunks % 2) +
           8 * g->k_h * (rolling ? l->fills * l->spans : l->first_span);
}

/* The rows a strip keeps from one output row to the next: k_h - stride_h when the next output row reads rows
 * again (no row dilation, stride_h < k_h) and scratch_bytes holds rolling strips; else 0. */
static MR_ALWAYS_INLINE int32_t dw_kept_rows(const mr_conv_geometry *g, const dw_layout *l, int32_t scratch_bytes)
{
    return g->dil_h == 1 && g->stride_h < g->k_h && scratch_bytes >= dw_scratch_of(g, l, 1) ? g->k_h - g->stride_h
                                                                                             : 0;
}

/* The strip entry points take windows of at most 255 rows (dw_roll counts a strip's rows in bytes), any depth
 * multiplier; their 3x3 forms (sums) are for 3x3 windows without dilation. */
static int dw_strip_applies(const mr_conv_geometry *g)
{
    return g->k_h <= 255;
}

static int dw_is_3x3(const mr_conv_geometry *g)
{
    return g->k_h == 3 && g->k_w == 3 && g->dil_h == 1 && g->dil_w == 1;
}

int32_t mr_depthwise_conv2d_s8_scratch_bytes(const mr_conv_geometry *g, int32_t rolling)
{
    dw_layout l;
    if (!dw_strip_applies(g)) {
        return 0;
    }
    l = dw_layout_of(g, dw_is_3x3(g));
    return dw_scratch_of(g, &l, rolling != 0);
}

int32_t mr_depthwise_conv2d_s8_kept_rows(const mr_conv_geometry *g, int32_t scratch_bytes)
{
    dw_layout l;
    if (!dw_strip_applies(g)) {
        return 0;
    }
    l = dw_layout_of(g, dw_is_3x3(g));
    return dw_kept_rows(g, &l, scratch_bytes);
}

#if MR_DSP

/* The header of the block of channels [oc, oc + 4). A partial last block (lanes = out_c - oc below 4) gets zero
 * weights and bias in its other lanes; its pixels go to the scratch first, and only its lanes on to the output. */
static void dw_block_header(const mr_conv2d_q_params *p, const int8_t *w, const int32_t *bias, int32_t oc,
                            dw_header *h, int shift1)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t taps = g->k_h * g->k_w, lanes = g->out_c - oc < 4 ? g->out_c - oc : 4;
    int32_t j;
    h->fast = 1;
    for (j = 0; j < 4; ++j) {
        mr_requant_zp *q = &h->q[j];
        const int32_t lane = j < lanes ? oc + j : oc; /* constants of a lane past out_c: lane 0's, never used */
        h->bias[j] = bias == NULL || j >= lanes ? 0 : bias[lane];
        h->fast &= mr_requant_zp_of(p->mult[lane], p->shift[lane], p->out_zp, q) & !p->single_round;
        if (shift1) { /* dw_pixels_3x3_r1's constants: the low word's start in k's top bits (DW_REQ_R1) */
            q->hi = p->shift[lane] == -1 ? p->out_zp : q->hi;
            q->k = p->shift[lane] == -1 ? (int32_t)0xC0000000 : q->k | 0x40000000;
        }
    }
    h->lo4 = (uint32_t)(uint8_t)p->act_min * 0x01010101u;
    h->hi4 = (uint32_t)(uint8_t)p->act_max * 0x01010101u;
    h->step = 8 * g->stride_w;
    /* 16: a raw block's sums (never with shift1); 4: a partial block's bytes, to be copied (dw_copy_lanes) */
    h->out_step = !h->fast && !shift1 ? 16 : lanes < 4 ? 4 : g->out_c;
    h->raw = !h->fast;
    for (j = 0, w += oc; j < taps; ++j, w += g->out_c) {
        const uint32_t v = lanes == 4 ? mr_load_s8x4(w)
                                      : (uint32_t)(uint8_t)w[0] | (lanes > 1 ? (uint32_t)(uint8_t)w[1] << 8 : 0) |
                                            (lanes > 2 ? (uint32_t)(uint8_t)w[2] << 16 : 0);
        h->wx[2 * j] = mr_even(v);
        h->wx[2 * j + 1] = mr_odd(v);
    }
}

/*
 * A strip (k_h rows of the chunk's span, packed) brought to an output row, as plan says (counts of rows, each
 * below 256): bits 0-7 the rows kept, which move up from as many rows down as are new (rolling strips only, none
 * at a batch image's first output row); then the new rows below them in order: bits 8-15 zero rows (above the
 * image), bits 24-31 rows extended from x, bits 16-23 zero rows (below the image). An extended row is lo zero
 * pixels, n pixels read c bytes apart minus the zero point and extended (channels 0, 2 | 1, 3, or one channel in
 * all four lanes), zr zero pixels; 7 instructions a pixel. One call a strip fill. The move goes 8 words a step by
 * LDM/STM (4 instructions); the registers are fixed so that both lists are the same ascending ones (LDM and STM
 * order words by register number), and x and j lend theirs to it. e and o hold 0 wherever zeros are stored.
 */
static MR_CONV_NOINLINE void dw_roll(int32_t *strip, const int8_t *from, const dw_chunk *chunk, uint32_t plan)
{
    register int32_t *s __asm__("r0") = strip;
    register const int8_t *x __asm__("r1") = from;
    register const dw_chunk *j __asm__("r2") = chunk;
    register uint32_t p __asm__("r3") = plan;
    register int32_t k __asm__("r4"), m __asm__("r5"), t __asm__("r6"), e __asm__("r8"), o __asm__("r9");
    register int32_t c __asm__("r10"), nz __asm__("r11"), rows __asm__("r12"), rb __asm__("lr");
    __asm__ volatile("ldr %[rb], [%[j], #24]\n\t" /* bytes a row */
                     "ands %[k], %[p], #0xff\n\t"
                     "beq 14f\n\t"
                     "push {%[x], %[j]}\n\t"
                     "mul %[j], %[k], %[rb]\n\t" /* j: bytes to move */
                     "ubfx %[x], %[p], #8, #8\n\t"
                     "uxtab %[x], %[x], %[p], ror #16\n\t"
                     "add %[x], %[x], %[p], lsr #24\n\t"
                     "mla %[x], %[x], %[rb], %[s]\n\t" /* x: the first kept row, as many rows down as are new */
                     "subs %[j], %[j], #32\n\t"
                     "blt 11f\n\t"
                     "10:\n\t"
                     "ldmia %[x]!, {%[k], %[m], %[t], %[e], %[o], %[c], %[nz], %[rows]}\n\t"
                     "stmia %[s]!, {%[k], %[m], %[t], %[e], %[o], %[c], %[nz], %[rows]}\n\t"
                     "subs %[j], %[j], #32\n\t"
                     "bge 10b\n\t"
                     "11:\n\t"
                     "adds %[j], %[j], #32\n\t"
                     "beq 13f\n\t"
                     "12:\n\t"
                     "ldmia %[x]!, {%[k], %[m]}\n\t"
                     "stmia %[s]!, {%[k], %[m]}\n\t"
                     "subs %[j], %[j], #8\n\t"
                     "bne 12b\n\t"
                     "13:\n\t"
                     "pop {%[x], %[j]}\n\t"
                     "14:\n\t"
                     "movs %[e], #0\n\t"
                     "movs %[o], #0\n\t"
                     "ubfx %[k], %[p], #8, #8\n\t"
                     "cbz %[k], 16f\n\t"
                     "mul %[k], %[k], %[rb]\n\t"
                     "15:\n\t"
                     "strd %[e], %[o], [%[s]], #8\n\t"
                     "subs %[k], %[k], #8\n\t"
                     "bne 15b\n\t"
                     "16:\n\t"
                     "lsrs %[rows], %[p], #24\n\t"
                     "beq 17f\n\t"
                     "ldr %[c], [%[j], #12]\n\t"
                     "ldr %[nz], [%[j], #16]\n\t"
                     "0:\n\t" /* an extended row: lo zeros, n pixels, zr zeros */
                     "ldr %[k], [%[j]]\n\t"
                     "cbz %[k], 2f\n\t"
                     "1:\n\t"
                     "strd %[e], %[o], [%[s]], #8\n\t"
                     "subs %[k], %[k], #1\n\t"
                     "bne 1b\n\t"
                     "2:\n\t"
                     "ldr %[k], [%[j], #4]\n\t"
                     "cbz %[k], 4f\n\t"
                     "ldr %[m], [%[j], #28]\n\t"
                     "cbnz %[m], 7f\n\t"
                     "3:\n\t"
                     "ldr %[t], [%[x]]\n\t"
                     "add %[x], %[x], %[c]\n\t"
                     "sxtab16 %[e], %[nz], %[t]\n\t"
                     "sxtab16 %[o], %[nz], %[t], ror #8\n\t"
                     "strd %[e], %[o], [%[s]], #8\n\t"
                     "subs %[k], %[k], #1\n\t"
                     "bne 3b\n\t"
                     "b 8f\n\t"
                     "7:\n\t"
                     "ldrb %[t], [%[x]]\n\t"
                     "add %[x], %[x], %[c]\n\t"
                     "sxtab16 %[e], %[nz], %[t]\n\t"
                     "pkhbt %[e], %[e], %[e], lsl #16\n\t"
                     "strd %[e], %[e], [%[s]], #8\n\t"
                     "subs %[k], %[k], #1\n\t"
                     "bne 7b\n\t"
                     "8:\n\t"
                     "movs %[e], #0\n\t"
                     "movs %[o], #0\n\t"
                     "4:\n\t"
                     "ldr %[k], [%[j], #8]\n\t"
                     "cbz %[k], 6f\n\t"
                     "5:\n\t"
                     "strd %[e], %[o], [%[s]], #8\n\t"
                     "subs %[k], %[k], #1\n\t"
                     "bne 5b\n\t"
                     "6:\n\t"
                     "ldr %[t], [%[j], #20]\n\t"
                     "add %[x], %[x], %[t]\n\t"
                     "subs %[rows], %[rows], #1\n\t"
                     "bne 0b\n\t"
                     "17:\n\t"
                     "ubfx %[k], %[p], #16, #8\n\t"
                     "cbz %[k], 19f\n\t"
                     "mul %[k], %[k], %[rb]\n\t"
                     "18:\n\t"
                     "strd %[e], %[o], [%[s]], #8\n\t"
                     "subs %[k], %[k], #8\n\t"
                     "bne 18b\n\t"
                     "19:"
                     : [s] "+r"(s), [x] "+r"(x), [j] "+r"(j), [rows] "=&r"(rows), [k] "=&r"(k), [t] "=&r"(t),
                       [e] "=&r"(e), [o] "=&r"(o), [c] "=&r"(c), [nz] "=&r"(nz), [m] "=&r"(m), [rb] "=&r"(rb)
                     : [p] "r"(p)
                     : "cc", "memory");
}

/*
 * dw_roll for a block whose four lanes read input channels off[0..3] bytes past `from`'s, minus the zero point zp:
 * depth multipliers other than 1 and the multiples of 4 (lanes oc / m .. (oc + 3) / m), and the block past the last
 * whole one with multiplier 1 (its lanes past out_c read its last channel again). The same plan, rows and zeros
 * as dw_roll, in C: about 13 instructions a pixel against 7.
 */
static MR_CONV_NOINLINE void dw_roll_gather(int32_t *strip, const int8_t *from, const dw_chunk *ch, uint32_t plan,
                                            const int32_t off[4], int32_t zp)
{
    const int32_t rw = ch->row_bytes / 4, kept = (int32_t)(plan & 0xffu), above = (int32_t)(plan >> 8 & 0xffu);
    const int32_t below = (int32_t)(plan >> 16 & 0xffu), rows = (int32_t)(plan >> 24);
    const int32_t o0 = off[0], o1 = off[1], o2 = off[2], o3 = off[3], n = ch->n, c = ch->c, nz = mr_pack2(-zp);
    const int32_t *moved = strip + (above + below + rows) * rw;
    int32_t *s = strip, i, r;
    for (i = 0; i < kept * rw; ++i) {
        *s++ = moved[i];
    }
    for (i = 0; i < above * rw; ++i) {
        *s++ = 0;
    }
    for (r = 0; r < rows; ++r, from += ch->x_skip) {
        for (i = 0; i < 2 * ch->lo; ++i) {
            *s++ = 0;
        }
        for (i = n; i > 0; --i, from += c, s += 2) { /* bytes of lanes (0, 2) and (1, 3), minus zp, extended */
            const uint8_t *u = (const uint8_t *)from;
            s[0] = __sxtab16(nz, (int32_t)((uint32_t)u[o0] | (uint32_t)u[o2] << 16));
            s[1] = __sxtab16(nz, (int32_t)((uint32_t)u[o1] | (uint32_t)u[o3] << 16));
        }
        for (i = 0; i < 2 * ch->zr; ++i) {
            *s++ = 0;
        }
    }
    for (i = 0; i < below * rw; ++i) {
        *s++ = 0;
    }
}

/* The 3x3 assembly's taps (two LDRDs, four 16x16 multiply-accumulates) and requantization of one channel. */
#define DW_TAP(XO, WO)                                                                                         \
    "ldrd %[t0], %[t1], [%[x], #" #XO "]\n\t"                                                                  \
    "ldrd %[t2], %[t3], [%[h], #" #WO "]\n\t"                                                                  \
    "smlabb %[a0], %[t0], %[t2], %[a0]\n\t"                                                                    \
    "smlatt %[a2], %[t0], %[t2], %[a2]\n\t"                                                                    \
    "smlabb %[a1], %[t1], %[t3], %[a1]\n\t"                                                                    \
    "smlatt %[a3], %[t1], %[t3], %[a3]\n\t"
#define DW_REQ(A, Q)                                                                                           \
    "ldrd %[t2], %[t3], [%[h], #" #Q "]\n\t"                                                                   \
    MR_ASM_REQUANT_ZP_MUL(A, "t0", "t2", "t2", "t3")                                                           \
    "ldr %[t3], [%[h], #" #Q " + 8]\n\t"                                                                       \
    MR_ASM_REQUANT_ZP_SAT8(A, "t2", "t3")

/*
 * DW_REQ for channels whose shift may also be -1, which mr_requant_zp cannot hold: the 64-bit start value is
 * 2^30 + 2^(30+r) - 2^31 [acc < 0] for a right shift r = -shift >= 1 (simd.h's derivation), i.e. the low word
 * L ^ (acc & 2^31) with L = 0x40000000 (r >= 2) or 0xC0000000 (r = 1), and the high word hi - 1 exactly when
 * that flips L's top bit from 0 to 1 (a borrow): acc < 0 and L < 2^31. The header keeps L in k's top bits (ASR
 * by a register reads its low byte only; dw_block_header) and hi = zp for r = 1. 11 instructions, 3 more.
 */
#define DW_REQ_R1(A, Q)                                                                                        \
    "ldr %[t3], [%[h], #" #Q " + 8]\n\t"                                                                        \
    "and %[t0], %[" A "], #0x80000000\n\t"                                                                     \
    "eor %[t0], %[t0], %[t3]\n\t"                                                                              \
    "bic %[t0], %[t0], #0xff\n\t"                                                                              \
    "bic %[t1], %[" A "], %[t3]\n\t"                                                                           \
    "ldr %[t2], [%[h], #" #Q "]\n\t"                                                                           \
    "add %[t2], %[t2], %[t1], asr #31\n\t"                                                                     \
    "ldr %[t1], [%[h], #" #Q " + 4]\n\t"                                                                       \
    "smlal %[t0], %[t2], %[" A "], %[t1]\n\t"                                                                  \
    "asr %[t2], %[t2], %[t3]\n\t"                                                                              \
    "ssat %[" A "], #8, %[t2]\n\t"

/*
 * count pixels of a 3x3 window without dilation, from the strip (rows row_bytes apart) into out. The body is
 * written once (MR_DW_PIXELS_3X3) for two routines: dw_pixels_3x3 tests each pixel (3 instructions) for a raw
 * block (channels mr_requant_zp does not cover), whose four sums of each pixel go to out as int32 instead;
 * dw_pixels_3x3_fast leaves the test out, for the entry point the compiler picks only when every channel is
 * covered (kernels/arm_dsp/depthwise_conv2d.py _asm_requantizes).
 */
#define MR_DW_RAW_TEST                                                                                         \
    "ldr %[t0], [%[h], #84]\n\t"                                                                                \
    "cmp %[t0], #0\n\t"                                                                                        \
    "bne 3f\n\t"
#define MR_DW_RAW_STORE                                                                                        \
    "b 4f\n\t"                                                                                                 \
    "3:\n\t"                                                                                                   \
    "strd %[a0], %[a1], [%[o]]\n\t"                                                                            \
    "strd %[a2], %[a3], [%[o], #8]\n\t"                                                                        \
    "b 2b\n\t"                                                                                                 \
    "4:"
#define MR_DW_PIXELS_3X3(name, raw_test, REQ, raw_store)                                                            \
    static MR_CONV_NOINLINE void name(const dw_header *h, const int32_t *x, int32_t row_bytes, int32_t count,   \
                                      int8_t *out)                                                             \
    {                                                                                                          \
        int32_t a0, a1, a2, a3, t0, t1, t2, t3;                                                                \
        __asm__ volatile("1:\n\t"                                                                              \
                         "ldrd %[a0], %[a1], [%[h]]\n\t"                                                       \
                         "ldrd %[a2], %[a3], [%[h], #8]\n\t"                                                   \
                         DW_TAP(0, 88) DW_TAP(8, 96) DW_TAP(16, 104)                                          \
                         "add %[x], %[x], %[rb]\n\t"                                                           \
                         DW_TAP(0, 112) DW_TAP(8, 120) DW_TAP(16, 128)                                        \
                         "add %[x], %[x], %[rb]\n\t"                                                           \
                         DW_TAP(0, 136) DW_TAP(8, 144) DW_TAP(16, 152)                                        \
                         "sub %[x], %[x], %[rb], lsl #1\n\t"                                                   \
                         raw_test                                                                              \
                         REQ("a0", 16) REQ("a1", 28) REQ("a2", 40) REQ("a3", 52)                              \
                         "bfi %[a0], %[a1], #8, #8\n\t"                                                        \
                         "bfi %[a0], %[a2], #16, #8\n\t"                                                       \
                         "bfi %[a0], %[a3], #24, #8\n\t"                                                       \
                         "ldrd %[t2], %[t3], [%[h], #64]\n\t"                                                  \
                         "ssub8 %[t0], %[a0], %[t2]\n\t"                                                       \
                         "sel %[a0], %[a0], %[t2]\n\t"                                                         \
                         "ssub8 %[t0], %[a0], %[t3]\n\t"                                                       \
                         "sel %[a0], %[t3], %[a0]\n\t"                                                         \
                         "str %[a0], [%[o]]\n\t"                                                               \
                         "2:\n\t"                                                                              \
                         "ldrd %[t2], %[t3], [%[h], #72]\n\t"                                                  \
                         "add %[x], %[x], %[t2]\n\t"                                                           \
                         "add %[o], %[o], %[t3]\n\t"                                                           \
                         "subs %[n], %[n], #1\n\t"                                                             \
                         "bne 1b\n\t"                                                                          \
                         raw_store                                                                             \
                         : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [t0] "=&r"(t0),     \
                           [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [x] "+r"(x), [o] "+r"(out),         \
                           [n] "+r"(count)                                                                     \
                         : [h] "r"(h), [rb] "r"(row_bytes)                                                     \
                         : "cc", "memory");                                                                    \
    }

MR_DW_PIXELS_3X3(dw_pixels_3x3, MR_DW_RAW_TEST, DW_REQ, MR_DW_RAW_STORE)
MR_DW_PIXELS_3X3(dw_pixels_3x3_fast, "", DW_REQ, "")
MR_DW_PIXELS_3X3(dw_pixels_3x3_r1, "", DW_REQ_R1, "")

/* The int8 of one channel's sum: with the block's mr_requant_zp constants when they cover it (fast), else the long
 * way; clamped to the activation. */
static MR_ALWAYS_INLINE int32_t dw_requant_lane(const mr_conv2d_q_params *p, const dw_header *h, int32_t acc,
                                                int32_t j, int32_t oc)
{
    const int32_t v = h->fast ? mr_requant_zp_apply(acc, &h->q[j])
                              : mr_requant_node(acc, p->mult[oc + j], p->shift[oc + j], p->single_round) + p->out_zp;
    return MR_CLAMP(v, p->act_min, p->act_max);
}

/* The taps' assembly: each tap two LDRDs (the strip at x, advanced by XSTEP; the weights at w) and four 16x16
 * multiply-accumulates, n taps. */
#define DW_TAPS_ASM(XLOAD, XSTEP)                                                                              \
    __asm__ volatile("1:\n\t" XLOAD "ldrd %[t2], %[t3], [%[w]], #8\n\t"                                   \
                     "smlabb %[a0], %[t0], %[t2], %[a0]\n\t"                                                 \
                     "smlatt %[a2], %[t0], %[t2], %[a2]\n\t"                                                 \
                     "smlabb %[a1], %[t1], %[t3], %[a1]\n\t"                                                 \
                     "smlatt %[a3], %[t1], %[t3], %[a3]\n\t"                                                 \
                     "subs %[n], %[n], #1\n\t"                                                               \
                     "bne 1b"                                                                                  \
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [t0] "=&r"(t0),             \
                       [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [x] "+r"(xt), [w] "+r"(w), [n] "+r"(n)  \
                     : XSTEP                                                                                   \
                     : "cc", "memory")

/* count pixels of any window from the strip (windows other than 3x3 undilated), the block's first `lanes`
 * channels written: a filter row's taps in one assembly loop (8 instructions a tap; 9 with column dilation,
 * whose step takes a twelfth register: unoptimized GCC builds with the hard-float ABI give only 11, so there
 * the loop runs a tap at a time), the accumulators in registers, then the requantization in C. */
static MR_CONV_NOINLINE void dw_pixels(const mr_conv2d_q_params *p, const dw_header *h, const int32_t *x,
                                       int32_t row_words, int32_t oc, int32_t count, int8_t *out, int32_t lanes)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t k_h = g->k_h, k_w = g->k_w, tap = 8 * g->dil_w;
    const int32_t step = 2 * g->stride_w, out_c = g->out_c;
    int32_t i, r;
    for (i = 0; i < count; ++i, x += step, out += out_c) {
        int32_t a0 = h->bias[0], a1 = h->bias[1], a2 = h->bias[2], a3 = h->bias[3], t0, t1, t2, t3;
        const int32_t *w = h->wx;
        for (r = 0; r < k_h; ++r) {
            const int32_t *xt = x + r * row_words;
            int32_t n = k_w;
            if (tap == 8) {
                DW_TAPS_ASM("ldrd %[t0], %[t1], [%[x]], #8\n\t", );
            } else {
#if defined(__OPTIMIZE__)
                DW_TAPS_ASM("ldrd %[t0], %[t1], [%[x]]\n\tadd %[x], %[x], %[tap]\n\t", [tap] "r"(tap));
#else
                const int32_t *row = xt;
                int32_t t;
                for (t = 0; t < k_w; ++t) {
                    xt = row + t * (tap / 4);
                    n = 1;
                    DW_TAPS_ASM("ldrd %[t0], %[t1], [%[x]], #8\n\t", );
                }
#endif
            }
        }
        /* only the block's lanes: a partial block's constants past out_c do not exist */
        out[0] = (int8_t)dw_requant_lane(p, h, a0, 0, oc);
        if (lanes > 1) {
            out[1] = (int8_t)dw_requant_lane(p, h, a1, 1, oc);
        }
        if (lanes > 2) {
            out[2] = (int8_t)dw_requant_lane(p, h, a2, 2, oc);
        }
        if (lanes > 3) {
            out[3] = (int8_t)dw_requant_lane(p, h, a3, 3, oc);
        }
    }
}

/* A partial block's count pixels, 4 bytes each in the scratch (dw_pixels_3x3 with out_step 4), to the output: its
 * first `lanes` channels. */
static void dw_copy_lanes(const int8_t *from, int32_t count, int8_t *out, int32_t out_c, int32_t lanes)
{
    int32_t i, j;
    for (i = 0; i < count; ++i, from += 4, out += out_c) {
        for (j = 0; j < lanes; ++j) {
            out[j] = from[j];
        }
    }
}

/* count pixels' raw sums (4 a pixel) of the block of channels [oc, oc + 4), requantized the long way into out:
 * its first `lanes` channels. */
static void dw_requant_raw(const mr_conv2d_q_params *p, const int32_t *acc, int32_t oc, int32_t count, int8_t *out,
                           int32_t lanes)
{
    int32_t i, j;
    for (i = 0; i < count; ++i, acc += 4, out += p->geo.out_c) {
        for (j = 0; j < lanes; ++j) {
            const int32_t v = mr_requant_node(acc[j], p->mult[oc + j], p->shift[oc + j], p->single_round) + p->out_zp;
            out[j] = (int8_t)MR_CLAMP(v, p->act_min, p->act_max);
        }
    }
}

/* The scratch's layout (*layout, with sums for the 3x3 entry points) and its chunks, filled in: those of an output
 * row, MR_DW_CHUNK pixels at most. Returns the rows a strip keeps from one output row to the next (dw_kept_rows:
 * rolling strips when not 0). One call a kernel call, out of line: the layout's arithmetic once for every entry
 * point a model links. */
static MR_CONV_NOINLINE int32_t dw_chunks(const mr_conv2d_q_params *p, int32_t *scratch, int sums, dw_layout *layout)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t c = g->in_c;
    dw_chunk *chunks;
    int32_t ox, k;
    *layout = dw_layout_of(g, sums);
    chunks = (dw_chunk *)(scratch + layout->blocks * layout->header_words);
    for (ox = 0, k = 0; ox < g->out_w; ox += chunks[k++].count) {
        dw_chunk *ch = &chunks[k];
        const int32_t ix0 = ox * g->stride_w - g->pad_left;
        const int32_t count = g->out_w - ox < MR_DW_CHUNK ? g->out_w - ox : MR_DW_CHUNK;
        const int32_t span = dw_span(g, count);
        int32_t lo = ix0 < 0 ? (-ix0 < span ? -ix0 : span) : 0; /* [lo, hi): the columns inside the image */
        int32_t hi = g->in_w - ix0 < span ? g->in_w - ix0 : span;
        hi = hi < lo ? lo : hi;
        ch->lo = lo;
        ch->n = hi - lo;
        ch->zr = span - hi;
        ch->row_bytes = 8 * span;
        ch->c = c;
        ch->nz = mr_pack2(-p->in_zp);
        ch->replicate = g->filter_c != 1;
        ch->x_skip = g->dil_h * g->in_w * c - ch->n * c;
        ch->x_off = (ix0 + lo) * c;
        ch->count = count;
        ch->out_off = ox * g->out_c;
    }
    return dw_kept_rows(g, layout, p->scratch_bytes);
}

/* Which pixel loop and block forms an entry point compiles dw_s8_strip with (constants, so each entry point links
 * only the code it needs: a model whose depthwise layers are all 3x3 does not link the C tap loop, one whose
 * blocks are all whole with multiplier 1 or a multiple of 4 not the gathered fill (DW_GENERAL), one whose channels
 * are all covered by mr_requant_zp neither the raw sums nor their test; the compiler picks the entry point from the
 * layer's constants, and the entry points without DW_GENERAL only for out_c a multiple of 4 with multiplier 1 or a
 * multiple of 4). Rolling strips are no variant: every entry point rolls when the scratch holds them. */
enum { DW_ANY_WINDOW = 0, DW_3X3 = 1, DW_GENERAL = 2, DW_ALL_FAST = 4, DW_SHIFT1 = 8 };

/* Any depth multiplier on DSP cores: the block headers and the chunks, then output row by output row, chunk by
 * chunk, block by block. A block's lanes are output channels oc .. oc + 3, reading input channels (oc + j) / m:
 * four adjacent ones (multiplier 1, dw_roll), one in all four (a multiple of 4, dw_roll, the strip shared by the
 * m / 4 blocks of that channel), or gathered (dw_roll_gather: other multipliers, and the last block when out_c is
 * not a multiple of 4, whose lanes past out_c compute zeros nobody stores). */
static MR_ALWAYS_INLINE void dw_s8_strip(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w,
                                         const int32_t *bias, int8_t *out, int32_t *scratch, int variant)
{
    const mr_conv_geometry *g = &p->geo;
    dw_layout layout;
    /* rows kept from one output row to the next: rolling strips when not 0 */
    const int32_t kept = dw_chunks(p, scratch, variant & DW_3X3, &layout);
    const int32_t c = g->out_c, m = g->filter_c, row_out = g->out_w * c, row_in = g->in_w * g->in_c;
    const int32_t blocks = layout.blocks, header_words = layout.header_words, n_chunks = layout.chunks;
    const int32_t sum_words = layout.sum_words; /* a raw block's sums: 4 words a pixel */
    dw_chunk *const chunks = (dw_chunk *)(scratch + blocks * header_words);
    int32_t *const sums = (int32_t *)(chunks + n_chunks + n_chunks % 2);
    int32_t *const strip = sums + sum_words;
    const int32_t strip_rows = kept ? g->k_h : 0; /* rows from one fill's strip to the next */
    int32_t b, oy, k, blk, r0, r1;
    for (blk = 0; blk < blocks; ++blk) {
        dw_block_header(p, w, bias, 4 * blk, (dw_header *)(scratch + blk * header_words), variant & DW_SHIFT1);
    }
    for (b = 0; b < g->batches; ++b) {
        for (oy = 0; oy < g->out_h; ++oy, out += row_out) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            const int32_t keep = oy > 0 ? kept : 0; /* rows [keep, k_h) are new; [r0, r1) of them in the image */
            const int8_t *x = in + b * g->in_h * row_in;
            int32_t *next = strip; /* rolling: the next fill's strip */
            uint32_t plan;         /* how each strip gets to this output row (dw_roll) */
            mr_conv_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &r0, &r1); /* the filter rows inside the image */
            r0 = r0 < g->k_h ? r0 : g->k_h;
            r1 = r1 < g->k_h ? r1 : g->k_h;
            r0 = r0 > keep ? r0 : keep;
            r1 = r1 > r0 ? r1 : r0;
            x += r1 > r0 ? (iy0 + r0 * g->dil_h) * row_in : 0;
            plan = (uint32_t)keep | (uint32_t)(r0 - keep) << 8 | (uint32_t)(g->k_h - r1) << 16 |
                   (uint32_t)(r1 - r0) << 24;
            for (k = 0; k < n_chunks; ++k) {
                const dw_chunk *ch = &chunks[k];
                const int8_t *xb = x + ch->x_off;
                const dw_header *h = (const dw_header *)scratch;
                const int32_t rw = (int32_t)((uint32_t)ch->row_bytes / 4u);
                const int32_t strip_step = strip_rows * rw;
                int32_t *rows = strip; /* the strip the block's pixels read */
                int8_t *o = out + ch->out_off;
                int32_t filled = -1; /* the input channel whose dw_roll strip `rows` holds */
                for (blk = 0; blk < blocks; ++blk, o += 4, h = (const dw_header *)((const int32_t *)h + header_words)) {
                    const int32_t oc = 4 * blk, lanes = c - oc < 4 ? c - oc : 4, channel = oc / m;
                    if ((variant & DW_GENERAL) && m % 4 != 0 && (m != 1 || lanes < 4)) { /* gathered lanes */
                        int32_t off[4], j;
                        for (j = 0; j < 4; ++j) {
                            off[j] = (j < lanes ? oc + j : c - 1) / m - channel;
                        }
                        rows = next;
                        next += strip_step;
                        dw_roll_gather(rows, xb + channel, ch, plan, off, p->in_zp);
                        filled = -1;
                    } else if (channel != filled) { /* this fill's strip (rolling: its own) to row oy */
                        rows = next;
                        next += strip_step;
                        dw_roll(rows, xb + channel, ch, plan);
                        filled = channel;
                    }
                    if (!(variant & DW_3X3)) {
                        dw_pixels(p, h, rows, rw, oc, ch->count, o, lanes);
                    } else if (variant & DW_SHIFT1) {
                        dw_pixels_3x3_r1(h, rows, 4 * rw, ch->count, o);
                    } else if (variant & DW_ALL_FAST) {
                        dw_pixels_3x3_fast(h, rows, 4 * rw, ch->count, o);
                    } else if (h->fast && lanes == 4) {
                        dw_pixels_3x3(h, rows, 4 * rw, ch->count, o);
                    } else if (h->fast) {
                        dw_pixels_3x3(h, rows, 4 * rw, ch->count, (int8_t *)sums);
                        dw_copy_lanes((const int8_t *)sums, ch->count, o, c, lanes);
                    } else {
                        dw_pixels_3x3(h, rows, 4 * rw, ch->count, (int8_t *)sums);
                        dw_requant_raw(p, sums, oc, ch->count, o, lanes);
                    }
                }
            }
        }
    }
}

/* The least scratch dw_s8_strip works in, without rolling strips (kernels/arm_dsp/depthwise_conv2d.py
 * dsp_scratch_bytes): the blocks' headers, the chunks (an even count), for 3x3 windows a chunk's raw sums, and one strip of k_h rows of
 * the first (widest) chunk's span. The strip entry points check it before they touch the scratch. */
static int32_t dw_strip_bytes(const mr_conv_geometry *g, int is_3x3)
{
    const int32_t chunk = g->out_w < MR_DW_CHUNK ? g->out_w : MR_DW_CHUNK;
    const int32_t chunks = (g->out_w + MR_DW_CHUNK - 1) / MR_DW_CHUNK;
    const int32_t span = (chunk - 1) * g->stride_w + (g->k_w - 1) * g->dil_w + 1;
    return (g->out_c + 3) / 4 * ((int32_t)sizeof(dw_header) + 8 * g->k_h * g->k_w) +
           (int32_t)sizeof(dw_chunk) * (chunks + chunks % 2) + (is_3x3 ? 16 * chunk : 0) + 8 * g->k_h * span;
}
#endif /* MR_DSP */

/* The strip kernel's entry points (depthwise_conv2d.h); the portable path runs the window walk. */
#if MR_DSP
#define MR_DW_STRIP_BODY(variant)                                                                              \
    if (scratch == NULL || p->scratch_bytes < dw_strip_bytes(&p->geo, (variant) & DW_3X3)) {                   \
        return MR_ERR_SCRATCH;                                                                                 \
    }                                                                                                          \
    dw_s8_strip(p, in, w, bias, out, (int32_t *)scratch, (variant));                                           \
    return MR_OK
#else
#define MR_DW_STRIP_BODY(variant) return ((void)scratch, mr_depthwise_conv2d_s8(p, in, w, bias, out))
#endif
#define MR_DW_STRIP_ENTRY(name, variant)                                                                       \
    int name(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out,  \
             void *scratch)                                                                                    \
    {                                                                                                          \
        MR_DW_STRIP_BODY(variant);                                                                             \
    }

MR_DW_STRIP_ENTRY(mr_depthwise_conv2d_s8_strip, DW_ANY_WINDOW | DW_GENERAL)
MR_DW_STRIP_ENTRY(mr_depthwise_conv2d_s8_strip3x3, DW_3X3 | DW_GENERAL)
MR_DW_STRIP_ENTRY(mr_depthwise_conv2d_s8_strip3x3_x4, DW_3X3)
MR_DW_STRIP_ENTRY(mr_depthwise_conv2d_s8_strip3x3_fast, DW_3X3 | DW_ALL_FAST)
MR_DW_STRIP_ENTRY(mr_depthwise_conv2d_s8_strip3x3_shift1, DW_3X3 | DW_SHIFT1)

int mr_depthwise_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
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
                if (multiplier % 4 == 0 || (multiplier == 1 && !MR_DSP)) { /* DSP builds: m = 1 is the _strip kernel */
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
    return MR_OK;
}

int mr_depthwise_conv2d_s16_wide(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w,
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
    return MR_OK;
}

int mr_depthwise_conv2d_f32(const mr_conv2d_f32_params *p, const float *in, const float *w, const float *bias,
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
    return MR_OK;
}
