/*
 * nn.conv2d (TFLite CONV_2D), NHWC data, OHWI weights:
 *   out[b][oy][ox][oc] = act(bias[oc] + sum over in-image taps (fy, fx), ic of w[oc][fy][fx][ic] * in[b][iy][ix][g+ic])
 * with iy = oy*stride_h - pad_top + fy*dil_h (likewise x) and g the first input channel of oc's group.
 * Also the window geometry shared by nn.depthwise_conv2d and nn.conv2d_transpose.
 */
#ifndef MICRO_RELAY_CONV2D_H
#define MICRO_RELAY_CONV2D_H

#include "crt.h"
#include "fixedpoint.h"

/* Kernels keep their multi-accumulator inner loops out of line: inlined into the large kernel bodies,
 * GCC -Os spills the accumulators to the stack on Cortex-M. */
#if defined(__GNUC__) || defined(__clang__)
#define MR_CONV_NOINLINE __attribute__((noinline))
#else
#define MR_CONV_NOINLINE
#endif

/* Pointwise convolutions go in tiles of at most this many flattened pixels: all of a tile's reads and writes
 * finish before the next tile starts (the memory planner relies on it: kernels/overlap.py POINTWISE_TILE). */
#define MR_POINTWISE_TILE 16

/* Static shape of a window walk. For transpose conv, in_* is the scattered input, out_* the output. */
typedef struct {
    int32_t batches, in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w, filter_c;  /* filter_c: input channels one filter reads (in_c / groups) */
    int32_t stride_h, stride_w, dil_h, dil_w;
    int32_t pad_top, pad_left;
} mr_conv_geometry;

/*
 * The taps f in [*first, *end) of a k-tap window starting at `origin` (step `dil`) that land in [0, size):
 * computing the range once per window replaces TFLite Micro's per-tap inside-image test.
 */
static inline void mr_conv_tap_range(int32_t origin, int32_t dil, int32_t k, int32_t size, int32_t *first,
                                     int32_t *end)
{
    const int32_t last = size - 1 - origin; /* valid taps have f * dil <= last */
    int32_t lo = origin < 0 ? (-origin + dil - 1) / dil : 0;
    int32_t hi = last < 0 ? 0 : last / dil + 1;
    if (hi > k) {
        hi = k;
    }
    *first = lo;
    *end = hi < lo ? lo : hi;
}

/*
 * TFLite Micro's per-channel requantization MBQM32(acc, mult, shift) (TFLM_ARITHMETIC.md section 1), bit-exact,
 * with its two roundings done by one 64-bit add. With p = (acc << left) * mult and a right shift r >= 1,
 * RDBPOT(SRDHM(acc << left, mult), r) = floor((p + 2^30 + 2^(30+r) - 2^31 [p < 0]) / 2^(31+r)), because
 * floor(floor(z / a) / b) = floor(z / (a b)). The 2^31 term is RDBPOT's "halves away from zero"; it should test
 * SRDHM(...) < 0, i.e. p < -2^30, but for p in [-2^30, 0) both numerators lie in [0, 2^(31+r)), so the result
 * is 0 either way. Dropping the low 32 bits first keeps the last shift in 32 bits. SRDHM saturates only for
 * mult = INT32_MIN, which conv2d's and depthwise_conv2d's prepare refuse. The constants depend only on the channel.
 */
typedef struct {
    int64_t nudge;  /* 2^30 + 2^(30+r) */
    int32_t mult;
    int32_t left;   /* left shift of the accumulator (wraps in int32, as in TFLite Micro) */
    int32_t right;  /* r - 1: the shift after dropping 32 bits; -1 when r = 0 */
    int32_t shift;  /* the channel's shift, for single rounding */
    int32_t single; /* nonzero: one rounding instead (mr_requant_single, the node's single_round) */
} mr_conv_requant;

static inline void mr_conv_requant_of(int32_t mult, int32_t shift, int32_t single, mr_conv_requant *q)
{
    const int32_t r = shift > 0 ? 0 : -shift;
    q->nudge = ((int64_t)1 << 30) + ((int64_t)1 << (30 + r));
    q->mult = mult;
    q->left = shift > 0 ? shift : 0;
    q->right = r - 1;
    q->shift = shift;
    q->single = single;
}

static inline int32_t mr_conv_requantize(const mr_conv_requant *q, int32_t acc)
{
    const int64_t prod = (int64_t)(int32_t)((uint32_t)acc << q->left) * q->mult;
    if (q->single) {
        return mr_requant_single(acc, q->mult, q->shift);
    }
    if (q->right < 0) { /* r = 0: SRDHM alone */
        return (int32_t)((prod + ((int64_t)1 << 30)) >> 31);
    }
    return (int32_t)((prod + q->nudge - (prod < 0 ? ((int64_t)1 << 31) : 0)) >> 32) >> q->right;
}

typedef struct {
    mr_conv_geometry geo;
    int32_t in_zp, out_zp;
    int32_t act_min, act_max;
    const int32_t *mult;         /* one per output channel */
    const int32_t *shift;
    const int32_t *folded_bias;  /* bias - in_zp * sum(w) per channel, or NULL: used for windows inside the image */
    int32_t scratch_bytes;       /* arena scratch the kernel was given (mr_conv2d_s8's DSP path), 0 for none */
    int32_t single_round;        /* int8: requantize with one rounding (mr_requant_single; the portable paths) */
} mr_conv2d_q_params;

typedef struct {
    mr_conv_geometry geo;
    float act_min, act_max;
} mr_conv2d_f32_params;

/*
 * The int8 DSP path's arena scratch, for the entry point the compiler calls for g (mr_conv2d_s8_pw8 for pointwise
 * layers with at most 8 input channels, _pw16 with 9..16, mr_conv2d_s8 otherwise): the one definition of its
 * layout, which the kernels use and the compiler's plan must agree with (tests/kernels/test_layouts.py compares
 * kernels/arm_dsp/conv2d.py with it). Compiled on every build, the host's included.
 * mr_conv2d_s8_scratch_bytes: the bytes for tiles of tile_pixels pixels (rounded up to pixel pairs; 0: the
 * default tile, at most MR_POINTWISE_TILE pixels), -1 when they exceed INT32_MAX.
 * mr_conv2d_s8_tile_pixels: the pixels a tile the kernel takes from scratch_bytes (an even count; below 2 it
 * computes nothing).
 */
int32_t mr_conv2d_s8_scratch_bytes(const mr_conv_geometry *g, int32_t tile_pixels);
int32_t mr_conv2d_s8_tile_pixels(const mr_conv_geometry *g, int32_t scratch_bytes);

/* The int8 kernel's portable C path, built and callable on every core; it ignores scratch (NULL is fine). */
int mr_conv2d_s8_portable(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                          int8_t *out, void *scratch);
/* int8 conv2d. On DSP builds (MR_DSP_ASM, micro_relay/simd.h) the DSP path: scratch is p->scratch_bytes of
 * word-aligned arena scratch that it gathers windows into, sized by the compiler (mr_conv2d_s8_scratch_bytes;
 * kernels/arm_dsp/conv2d.py dsp_scratch_bytes), and MR_ERR_SCRATCH (nothing written) when it is NULL or holds no
 * pixel pair. On other builds mr_conv2d_s8_portable. The _pw8 and _pw16 forms below behave the same way. */
int mr_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out,
                 void *scratch);
/* mr_conv2d_s8 for pointwise layers (1x1, stride 1, no padding, one group) with at most 8 input channels: on the
 * DSP path one output channel at a time over a tile, its weights in registers; the same scratch. */
int mr_conv2d_s8_pw8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                     int8_t *out, void *scratch);
/* mr_conv2d_s8_pw8 for fewer than 8 input channels, with the weights the compiler padded to 8 a channel (zeros
 * past in_c): every channel of a tile in one assembly pass, and the pixels read 8 bytes as they are (their bytes
 * past in_c meet zero weights) except where that would pass the input's end. */
int mr_conv2d_s8_pw8_padded(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w8, const int32_t *bias,
                            int8_t *out, void *scratch);
/* mr_conv2d_s8 for pointwise layers with 9..16 input channels: on the DSP path windows padded to 16 values and a
 * straight 4-block pixel-pair loop; scratch sized for 16 values a pixel (mr_conv2d_s8_scratch_bytes). */
int mr_conv2d_s8_pw16(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                      int8_t *out, void *scratch);
/* int16 activations: accumulate in int32 with an int32 bias, or in int64 (the _wide form) otherwise. */
int mr_conv2d_s16(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w, const int32_t *bias,
                  int16_t *out);
int mr_conv2d_s16_wide(const mr_conv2d_q_params *p, const int16_t *in, const int8_t *w, const int64_t *bias,
                       int16_t *out);
int mr_conv2d_f32(const mr_conv2d_f32_params *p, const float *in, const float *w, const float *bias, float *out);

#endif /* MICRO_RELAY_CONV2D_H */
