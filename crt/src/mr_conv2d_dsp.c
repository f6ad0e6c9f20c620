/*
 * nn.conv2d int8 on cores with the DSP extension (Cortex-M4/M7/M33, __ARM_FEATURE_DSP): mr_conv2d_s8,
 * mr_conv2d_s8_pw8 and mr_conv2d_s8_pw16, bit-exact with TFLite Micro's reference CONV_2D (TFLM_ARITHMETIC.md
 * sections 2 and 8), overriding mr_conv2d_s8_portable (mr_conv2d.c, with int16 and float) as TFLite Micro's
 * optimized kernels override its reference ones. On other cores, in builds whose compiler cannot give the
 * assembly 14 registers (MR_DSP_ASM in micro_relay/simd.h) and with MR_FORCE_PORTABLE, the three entry points
 * call mr_conv2d_s8_portable. Each returns MR_OK, or MR_ERR_SCRATCH when its DSP path's scratch is short.
 */
#include "micro_relay/conv2d.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/simd.h"

/*
 * The arena scratch of the DSP path, one definition for the kernels below and for the compiler's plan
 * (mr_conv2d_s8_scratch_bytes, mr_conv2d_s8_tile_pixels: compiled on every build, the host's included). An entry
 * point's scratch holds `slots` weight slots, then the tile's pixel pairs, then the int8 staging copy of one window
 * (`stage` bytes, 0 for none); a slot and a pixel pair are `pair` bytes, 4 bytes per window value with the window
 * padded with zeros to a multiple of 4 values (mr_conv2d_s8_pw8 to 8, _pw16 to 16). mr_conv2d_s8: one slot (a
 * channel pair's filters, refilled per tile), staging when filter_c is not a multiple of 4 and the layer is not
 * pointwise. _pw8: no slot (the weights stay in registers). _pw16: a slot per channel pair up to 64 channels
 * (every filter extended once a call), else one.
 */
enum { CONV_ANY = 0, CONV_PW8 = 1, CONV_PW16 = 2 }; /* mr_conv2d_s8, mr_conv2d_s8_pw8, mr_conv2d_s8_pw16 */

typedef struct {
    int32_t slots, pair, stage;
} conv_layout;

/* Per-tile default budget of windows' bytes (pixel pairs) for tiles without a tile_pixels attribute. */
#define MR_CONV_DSP_TILE_BYTES 8192

/* The matrix-product condition: 1x1, stride 1, no padding, input and output spatially equal, one group. */
static MR_ALWAYS_INLINE int conv_is_pointwise(const mr_conv_geometry *g)
{
    return g->k_h == 1 && g->k_w == 1 && g->stride_h == 1 && g->stride_w == 1 && g->pad_top == 0 &&
           g->pad_left == 0 && g->out_h == g->in_h && g->out_w == g->in_w && g->filter_c == g->in_c;
}

/* The entry point the compiler calls for g (kernels/arm_dsp/conv2d.py _suffix). */
static int conv_entry(const mr_conv_geometry *g)
{
    return !conv_is_pointwise(g) || g->in_c > 16 ? CONV_ANY : g->in_c <= 8 ? CONV_PW8 : CONV_PW16;
}

static MR_ALWAYS_INLINE conv_layout conv_layout_of(const mr_conv_geometry *g, int entry)
{
    const int32_t n = entry == CONV_PW8 ? 8 : entry == CONV_PW16 ? 16 : g->k_h * g->k_w * g->filter_c;
    const int32_t quads = (n + 3) / 4;
    conv_layout l;
    l.pair = 16 * quads;
    l.slots = entry == CONV_PW8 ? 0 : entry == CONV_PW16 && g->out_c <= 64 ? (g->out_c + 1) / 2 : 1;
    l.stage = entry != CONV_ANY || conv_is_pointwise(g) || g->filter_c % 4 == 0 ? 0 : 4 * quads;
    return l;
}

/* The pixels a tile that scratch_bytes holds: whole pixel pairs after the slots and before the staging copy
 * (the kernels take no tile below 2 pixels). */
static MR_ALWAYS_INLINE int32_t conv_tile_pixels(const conv_layout *l, int32_t scratch_bytes)
{
    const int32_t room = scratch_bytes - l->slots * l->pair - l->stage;
    return room < l->pair ? 0 : room / l->pair * 2;
}

/* The tile without a tile_pixels attribute (an even count): pointwise layers MR_POINTWISE_TILE pixels at most
 * within MR_CONV_DSP_TILE_BYTES; others at most MR_POINTWISE_TILE / 2 - 1 pairs (ResNet-8's 3x3x16 layers set
 * its arena), at least 1, and no more than a band's pixels (one group: as many whole output rows as the pairs
 * hold; else one row). */
static int32_t conv_default_tile(const mr_conv_geometry *g, const conv_layout *l)
{
    const int32_t budget = MR_CONV_DSP_TILE_BYTES / l->pair;
    int32_t pairs, row_pixels;
    if (conv_is_pointwise(g)) {
        row_pixels = g->batches * g->out_h * g->out_w;
        pairs = budget > 1 ? budget : 1;
        pairs = pairs < MR_POINTWISE_TILE / 2 ? pairs : MR_POINTWISE_TILE / 2;
    } else {
        pairs = budget > 2 ? budget : 2;
        pairs = (pairs < MR_POINTWISE_TILE / 2 ? pairs : MR_POINTWISE_TILE / 2) - 1;
        row_pixels = g->out_w;
        if (g->in_c == g->filter_c && row_pixels > 0 && 2 * pairs >= row_pixels) {
            row_pixels *= 2 * pairs / row_pixels;
        }
    }
    return 2 * (pairs < (row_pixels + 1) / 2 ? pairs : (row_pixels + 1) / 2);
}

int32_t mr_conv2d_s8_scratch_bytes(const mr_conv_geometry *g, int32_t tile_pixels)
{
    const conv_layout l = conv_layout_of(g, conv_entry(g));
    const int64_t tile = tile_pixels > 0 ? tile_pixels : conv_default_tile(g, &l);
    const int64_t bytes = ((tile + 1) / 2 + l.slots) * l.pair + l.stage;
    return bytes <= INT32_MAX ? (int32_t)bytes : -1;
}

int32_t mr_conv2d_s8_tile_pixels(const mr_conv_geometry *g, int32_t scratch_bytes)
{
    const conv_layout l = conv_layout_of(g, conv_entry(g));
    return conv_tile_pixels(&l, scratch_bytes);
}

#if MR_DSP_ASM
/*
 * DSP path (Cortex-M4/M7/M33, __ARM_FEATURE_DSP): every int8 convolution is a matrix product over gathered
 * windows (im2col). Loop structure:
 *   band of rows (pointwise: one row of all the flattened pixels; with one group, as many whole rows as a tile
 *   holds, which only delays a row's stores past the band's later reads, so the planner's row order still
 *   holds; else one row) > group > tile of as many pixels of the band as the scratch holds > each pixel's
 *   window gathered (in-image taps; 0 for the others) one run at a time (a filter
 *   row's in-image taps when contiguous), minus the zero point and sign-extended to int16 pairs (one LDR, two
 *   SXTAB16 and one STRD per 4 values) into the arena scratch the compiler planned (p->scratch_bytes) > pair of
 *   output channels: their filters extended to int16 once into the scratch's weight slot, requantization
 *   constants made here > pair of pixels (one assembly call for all of them, tile_pairs): 4 accumulators,
 *   one LDM, 2 LDRD and 8 SMLADs per 4 window values, requantization with the output zero point folded in
 *   (mr_requant_zp), SSAT, a halfword store per pixel (its channel pair).
 * Extending the weights once per tile instead of once per pixel pair takes 4 SXTB16 and 2 LDR out of every
 * 16 MACs, and frees the register that keeps the job's address through the loop. The compiler sizes the tile:
 * MR_POINTWISE_TILE pixels by default, more (up to the whole layer, each filter then extended once) when the
 * arena has the room anyway (kernels/arm_dsp/conv2d.py variants, plan/room.py).
 * Channels whose constants mr_requant_zp does not cover, clamps narrower than int8 and an odd last channel
 * take tile_pairs' raw accumulators and C's requantize_slow.
 * Every window starts from the bias and takes x - zp (0 for taps outside the image), so no border case.
 * The scratch holds the weight slot and at least one pixel pair (the compiler always plans both); without
 * them the kernel writes nothing and returns MR_ERR_SCRATCH.
 * Scratch layout: the weight slot, then pixel pairs, each slot 4 * quads words (quads = ceil(n / 4), windows
 * and filters padded with zeros). Per 4 window values a pixel pair holds [px0 even, px0 odd, px1 even, px1 odd],
 * the weight slot [ch0 even, ch0 odd, ch1 even, ch1 odd]. A lone last pixel fills its pair's px0 half; the px1
 * half is computed and dropped. A window whose filter_c is not a multiple of 4 is staged as int8 after the
 * tile first (zero point off-image and in the padding).
 */

/* What tile_pairs reads, at the offsets its assembly uses. */
typedef struct {
    const int32_t *wx;      /* 0: the channel pair's extended filters */
    int32_t passes;         /* 4: loop passes of 4 blocks of 4 values */
    int32_t b0, b1;         /* 8: the channels' biases */
    mr_requant_zp q0, q1;   /* 16, 28 */
    int8_t *out;            /* 40: channel 0 of the pair at the next pixel pair's first pixel */
    const int32_t *end;     /* 44: end of the tile's last pixel pair */
    int32_t step;           /* 48: from a pixel's output to the next one's */
    int32_t last_step;      /* 52: step for the last pixel pair (0: a lone pixel) */
    int32_t *acc;           /* 56: NULL, or where each pixel pair's 4 raw accumulators go (no requantization) */
    uintptr_t skip;         /* 60: bytes of blocks skipped in the first pass (kept, so a tile sets it once) */
    uintptr_t enter;        /* 64: where a pixel pair enters (set by tile_pairs) */
    uintptr_t leave;        /* 68: where a pixel pair goes after its products (set by tile_pairs) */
} fast_job;
/* The offsets tile_pairs and tile16 read (LDRD pairs: wx/passes, b0/b1, q.hi/q.mult, end/step). */
MR_CHECK_OFFSET(fast_job, wx, wx, 0);
MR_CHECK_OFFSET(fast_job, passes, passes, 4);
MR_CHECK_OFFSET(fast_job, b0, b0, 8);
MR_CHECK_OFFSET(fast_job, b1, b1, 12);
MR_CHECK_OFFSET(fast_job, q0_hi, q0.hi, 16);
MR_CHECK_OFFSET(fast_job, q0_mult, q0.mult, 20);
MR_CHECK_OFFSET(fast_job, q0_k, q0.k, 24);
MR_CHECK_OFFSET(fast_job, q1_hi, q1.hi, 28);
MR_CHECK_OFFSET(fast_job, q1_mult, q1.mult, 32);
MR_CHECK_OFFSET(fast_job, q1_k, q1.k, 36);
MR_CHECK_OFFSET(fast_job, out, out, 40);
MR_CHECK_OFFSET(fast_job, end, end, 44);
MR_CHECK_OFFSET(fast_job, step, step, 48);
MR_CHECK_OFFSET(fast_job, last_step, last_step, 52);
MR_CHECK_OFFSET(fast_job, acc, acc, 56);
MR_CHECK_OFFSET(fast_job, skip, skip, 60);
MR_CHECK_OFFSET(fast_job, enter, enter, 64);
MR_CHECK_OFFSET(fast_job, leave, leave, 68);

/* Per pixel pair from x to job->end: bias, quads (>= 1) x (LDM, 2 LDRD, 8 SMLADs; four blocks of 4 values a loop
 * pass, entering at the first, fourth, third or second for quads % 4 = 0, 1, 2, 3), then either the raw
 * accumulators into job->acc or requantization (mr_requant_zp_apply's five instructions and SSAT) and two
 * halfword stores (a pixel's channel pair), second pixel first (with step 0 the first pixel's store wins).
 * Where a pixel pair enters the loop and where it goes after it are worked out once a call and taken with LDR PC
 * (a block is 44 bytes of 32-bit instructions), so a pixel pair pays one instruction for each. The job's address
 * stays in the 14th free register. */
static MR_CONV_NOINLINE void tile_pairs(const int32_t *x, fast_job *job)
{
    /* LDM fills ascending register numbers from ascending addresses: the weights' four registers are fixed in
     * the slot's order [ch0 even, ch0 odd, ch1 even, ch1 odd]; the compiler places the other operands. */
    register int32_t ue __asm__("r2");
    register int32_t uo __asm__("r3");
    register int32_t ve __asm__("r4");
    register int32_t vo __asm__("r5");
    int32_t a00, a01, a10, a11, n, t0, t1;
    const int32_t *w;
/* Requantization of accumulator a (simd.h): the channel's mr_requant_zp in ue, uo, ve; t0 and vo scratch. */
#define MR_REQ(a) MR_ASM_REQUANT_ZP(a, "t0", "vo", "ue", "uo", "ve")
/* One block of 4 window values: both channels' extended weights (one LDM, 32-bit so that every block has the
 * same size), each pixel's, 8 SMLADs. */
#define MR_QUAD                                                                                                \
    "ldm.w %[w]!, {%[ue], %[uo], %[ve], %[vo]}\n\t"                                                            \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t"                                                                        \
    "smlad %[a00], %[t0], %[ue], %[a00]\n\t"                                                                   \
    "smlad %[a01], %[t0], %[ve], %[a01]\n\t"                                                                   \
    "smlad %[a00], %[t1], %[uo], %[a00]\n\t"                                                                   \
    "smlad %[a01], %[t1], %[vo], %[a01]\n\t"                                                                   \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t"                                                                        \
    "smlad %[a10], %[t0], %[ue], %[a10]\n\t"                                                                   \
    "smlad %[a11], %[t0], %[ve], %[a11]\n\t"                                                                   \
    "smlad %[a10], %[t1], %[uo], %[a10]\n\t"                                                                   \
    "smlad %[a11], %[t1], %[vo], %[a11]\n\t"
    __asm__ volatile("9:\n\t" /* PC reads as 9b + 4; + 1 below: Thumb (GAS's ADR misses here when unaligned) */
                     "mov %[t1], pc\n\t"
                     "add %[t1], %[t1], #(4f - 9b - 3)\n\t"
                     "ldr %[t0], [%[c], #60]\n\t"
                     "sub %[t1], %[t1], %[t0]\n\t"
                     "str %[t1], [%[c], #64]\n\t"
                     "add %[t1], %[t1], #(6f - 4f)\n\t"
                     "add %[t1], %[t1], %[t0]\n\t"
                     "ldr %[t0], [%[c], #56]\n\t"
                     "cmp %[t0], #0\n\t"
                     "it ne\n\t"
                     "subne %[t1], %[t1], #(6f - 8f)\n\t"
                     "str %[t1], [%[c], #68]\n\t"
                     "0:\n\t"
                     "ldrd %[a00], %[a01], [%[c], #8]\n\t"
                     "mov %[a10], %[a00]\n\t"
                     "mov %[a11], %[a01]\n\t"
                     "ldrd %[w], %[n], [%[c]]\n\t"
                     "ldr pc, [%[c], #64]\n\t"
                     "1:\n\t"
                     MR_QUAD
                     "2:\n\t"
                     MR_QUAD
                     "3:\n\t"
                     MR_QUAD
                     "4:\n\t"
                     MR_QUAD
                     ".if (2b - 1b) - 44\n\t" /* the entry offsets the C side computes assume 44-byte blocks */
                     ".error \"tile_pairs: a block of 4 window values is not 44 bytes\"\n\t"
                     ".endif\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b\n\t"
                     "ldr pc, [%[c], #68]\n\t"
                     "8:\n\t"
                     "ldr %[t0], [%[c], #56]\n\t"
                     "strd %[a00], %[a01], [%[t0]], #8\n\t"
                     "strd %[a10], %[a11], [%[t0]], #8\n\t"
                     "str %[t0], [%[c], #56]\n\t"
                     "ldr %[t0], [%[c], #44]\n\t"
                     "cmp %[x], %[t0]\n\t"
                     "bne 0b\n\t"
                     "b 7f\n\t"
                     "6:\n\t"
                     "ldrd %[ue], %[uo], [%[c], #16]\n\t"
                     "ldr %[ve], [%[c], #24]\n\t"
                     MR_REQ("a00") MR_REQ("a10")
                     "ldrd %[ue], %[uo], [%[c], #28]\n\t"
                     "ldr %[ve], [%[c], #36]\n\t"
                     MR_REQ("a01") MR_REQ("a11")
                     "ldr %[w], [%[c], #40]\n\t"
                     "ldrd %[t0], %[t1], [%[c], #44]\n\t"
                     "cmp %[x], %[t0]\n\t" /* eq: the last pair */
                     "it eq\n\t"
                     "ldreq %[t1], [%[c], #52]\n\t"
                     "bfi %[a10], %[a11], #8, #8\n\t"
                     "strh %[a10], [%[w], %[t1]]\n\t"
                     "bfi %[a00], %[a01], #8, #8\n\t"
                     "strh %[a00], [%[w]]\n\t"
                     "add %[w], %[w], %[t1], lsl #1\n\t"
                     "str %[w], [%[c], #40]\n\t"
                     "bne 0b\n\t"
                     "7:"
                     : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [x] "+r"(x),
                       [w] "=&r"(w), [n] "=&r"(n), [ue] "=&r"(ue), [uo] "=&r"(uo), [ve] "=&r"(ve), [vo] "=&r"(vo),
                       [t0] "=&r"(t0), [t1] "=&r"(t1)
                     : [c] "r"(job)
                     : "cc", "memory");
#undef MR_REQ
#undef MR_QUAD
}

/* tile_pairs for windows of exactly 4 blocks (mr_conv2d_s8_pw16: 9..16 input channels, padded) with
 * requantization: the 4 blocks run straight, and the loop counter's register keeps the output address, so a
 * pixel pair pays 4 instructions for its bias and weights, 44 for the products, 28 for requantization and 10 for
 * its stores (tile_pairs: 92 with its entry and exit jumps). Reads only job fields 0..55. */
static MR_CONV_NOINLINE void tile16(const int32_t *x, const fast_job *job)
{
    register int32_t ue __asm__("r2");
    register int32_t uo __asm__("r3");
    register int32_t ve __asm__("r4");
    register int32_t vo __asm__("r5");
    int32_t a00, a01, a10, a11, t0, t1;
    const int32_t *w;
    int8_t *o;
/* Requantization of accumulator a (simd.h): the channel's mr_requant_zp in ue, uo, ve; t0 and vo scratch. */
#define MR_REQ(a) MR_ASM_REQUANT_ZP(a, "t0", "vo", "ue", "uo", "ve")
#define MR_QUAD                                                                                                \
    "ldm %[w]!, {%[ue], %[uo], %[ve], %[vo]}\n\t"                                                              \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t"                                                                        \
    "smlad %[a00], %[t0], %[ue], %[a00]\n\t"                                                                   \
    "smlad %[a01], %[t0], %[ve], %[a01]\n\t"                                                                   \
    "smlad %[a00], %[t1], %[uo], %[a00]\n\t"                                                                   \
    "smlad %[a01], %[t1], %[vo], %[a01]\n\t"                                                                   \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t"                                                                        \
    "smlad %[a10], %[t0], %[ue], %[a10]\n\t"                                                                   \
    "smlad %[a11], %[t0], %[ve], %[a11]\n\t"                                                                   \
    "smlad %[a10], %[t1], %[uo], %[a10]\n\t"                                                                   \
    "smlad %[a11], %[t1], %[vo], %[a11]\n\t"
    __asm__ volatile("ldr %[o], [%[c], #40]\n\t"
                     "0:\n\t"
                     "ldrd %[a00], %[a01], [%[c], #8]\n\t"
                     "mov %[a10], %[a00]\n\t"
                     "mov %[a11], %[a01]\n\t"
                     "ldr %[w], [%[c]]\n\t"
                     MR_QUAD MR_QUAD MR_QUAD MR_QUAD
                     "ldrd %[ue], %[uo], [%[c], #16]\n\t"
                     "ldr %[ve], [%[c], #24]\n\t"
                     MR_REQ("a00") MR_REQ("a10")
                     "ldrd %[ue], %[uo], [%[c], #28]\n\t"
                     "ldr %[ve], [%[c], #36]\n\t"
                     MR_REQ("a01") MR_REQ("a11")
                     "ldrd %[t0], %[t1], [%[c], #44]\n\t"
                     "cmp %[x], %[t0]\n\t" /* eq: the last pair */
                     "it eq\n\t"
                     "ldreq %[t1], [%[c], #52]\n\t"
                     "bfi %[a10], %[a11], #8, #8\n\t"
                     "strh %[a10], [%[o], %[t1]]\n\t"
                     "bfi %[a00], %[a01], #8, #8\n\t"
                     "strh %[a00], [%[o]]\n\t"
                     "add %[o], %[o], %[t1], lsl #1\n\t"
                     "bne 0b"
                     : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [x] "+r"(x),
                       [w] "=&r"(w), [o] "=&r"(o), [ue] "=&r"(ue), [uo] "=&r"(uo), [ve] "=&r"(ve), [vo] "=&r"(vo),
                       [t0] "=&r"(t0), [t1] "=&r"(t1)
                     : [c] "r"(job)
                     : "cc", "memory");
#undef MR_REQ
#undef MR_QUAD
}

/* Extends quads (>= 0) blocks of 4 int8 values minus zp (nz: -zp in both lanes) into dst, 4 words apart (a
 * pair): one LDR (any alignment), two SXTAB16 and one STRD per block. */
static MR_CONV_NOINLINE void extend(const int8_t *src, int32_t quads, int32_t nz, int32_t *dst)
{
    uint32_t v;
    int32_t e, o;
    __asm__ volatile("b 2f\n\t"
                     "1:\n\t"
                     "ldr %[v], [%[s]], #4\n\t"
                     "sxtab16 %[e], %[nz], %[v]\n\t"
                     "sxtab16 %[o], %[nz], %[v], ror #8\n\t"
                     "strd %[e], %[o], [%[d]], #16\n\t"
                     "2:\n\t"
                     "subs %[q], %[q], #1\n\t"
                     "bpl 1b"
                     : [s] "+r"(src), [q] "+r"(quads), [d] "+r"(dst), [v] "=&r"(v), [e] "=&r"(e), [o] "=&r"(o)
                     : [nz] "r"(nz)
                     : "cc", "memory");
}

/* Extends quads (>= 0) blocks of 4 weights of two filters into dst, the weight slot's layout: per block
 * [f0 even, f0 odd, f1 even, f1 odd]. Two blocks a loop pass (an odd count enters at the second): it runs once
 * per tile and channel pair, so the loop's SUBS and branch are a tenth of a kws pointwise layer's extension. */
static MR_CONV_NOINLINE void extend_pair(const int8_t *f0, const int8_t *f1, int32_t quads, int32_t *dst)
{
    uint32_t u, v;
    int32_t e, o;
#define MR_EXT2                                                                                                \
    "ldr %[u], [%[f0]], #4\n\t"                                                                                \
    "ldr %[v], [%[f1]], #4\n\t"                                                                                \
    "sxtb16 %[e], %[u]\n\t"                                                                                    \
    "sxtb16 %[o], %[u], ror #8\n\t"                                                                            \
    "strd %[e], %[o], [%[d]], #8\n\t"                                                                          \
    "sxtb16 %[e], %[v]\n\t"                                                                                    \
    "sxtb16 %[o], %[v], ror #8\n\t"                                                                            \
    "strd %[e], %[o], [%[d]], #8\n\t"
    __asm__ volatile("lsrs %[q], %[q], #1\n\t" /* carry: an odd count */
                     "bcs 2f\n\t"
                     "b 3f\n\t"
                     "1:\n\t"
                     MR_EXT2
                     "2:\n\t"
                     MR_EXT2
                     "3:\n\t"
                     "subs %[q], %[q], #1\n\t"
                     "bpl 1b"
                     : [f0] "+r"(f0), [f1] "+r"(f1), [q] "+r"(quads), [d] "+r"(dst), [u] "=&r"(u), [v] "=&r"(v),
                       [e] "=&r"(e), [o] "=&r"(o)
                     :
                     : "cc", "memory");
#undef MR_EXT2
}

/*
 * Flattened output pixel q's window over channels [ch, ch + filter_c), minus the zero point (0 for taps off the
 * image and for the padding), extended into dst. A filter row's in-image taps are one run when they are
 * contiguous in memory (no dilation, one group), else one run per tap; taps off the image go one at a time.
 * With filter_c a multiple of 4 every run extends straight from the input; otherwise the window is staged as
 * int8 first (zero point off-image and in the padding).
 */
static MR_CONV_NOINLINE void gather(const mr_conv2d_q_params *p, const int8_t *in, int32_t q, int32_t ch, int8_t *stage,
                   int32_t *dst)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t plane = g->out_h * g->out_w, b = q / plane, oy = q % plane / g->out_w, ox = q % g->out_w;
    const int32_t iy0 = oy * g->stride_h - g->pad_top, ix0 = ox * g->stride_w - g->pad_left;
    const int8_t *image = in + b * g->in_h * g->in_w * g->in_c + ch;
    const int32_t fc = g->filter_c, direct = fc % 4 == 0, nz = mr_pack2(-p->in_zp);
    const int whole = g->dil_w == 1 && fc == g->in_c;
    int8_t *st = stage;
    int32_t fy, fx, len, c;
    for (fy = 0; fy < g->k_h; ++fy) {
        const int32_t iy = iy0 + fy * g->dil_h;
        for (fx = 0; fx < g->k_w; fx += len) {
            const int32_t ix = ix0 + fx * g->dil_w;
            const int inside = iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w;
            int32_t values;
            len = 1;
            if (inside && whole) { /* the taps up to the window's or the image's right edge */
                len = g->k_w - fx < g->in_w - ix ? g->k_w - fx : g->in_w - ix;
            }
            values = len * fc;
            if (inside) {
                const int8_t *src = image + (iy * g->in_w + ix) * g->in_c;
                if (direct) {
                    extend(src, values / 4, nz, dst);
                } else { /* runs are short (a 10x4x1 window's: 4 bytes): no memcpy call */
                    for (c = 0; c + 4 <= values; c += 4) {
                        memcpy(st + c, src + c, 4);
                    }
                    for (; c < values; ++c) {
                        st[c] = src[c];
                    }
                }
            } else if (direct) {
                for (c = 0; c < values; c += 4) {
                    dst[c] = 0;
                    dst[c + 1] = 0;
                }
            } else {
                memset(st, p->in_zp, (size_t)values);
            }
            if (direct) {
                dst += values;
            } else {
                st += values;
            }
        }
    }
    if (!direct) {
        for (c = g->k_h * g->k_w * fc; c % 4; ++c) {
            *st++ = (int8_t)p->in_zp;
        }
        extend(stage, (int32_t)(st - stage) / 4, nz, dst);
    }
}

/* One output value the long way: channels whose constants mr_requant_zp does not cover, clamps narrower than
 * int8. */
static int32_t requantize_slow(const mr_conv2d_q_params *p, int32_t oc, int32_t acc)
{
    acc = mr_requant_node(acc, p->mult[oc], p->shift[oc], p->single_round) + p->out_zp;
    return MR_CLAMP(acc, p->act_min, p->act_max);
}

/* A channel pair tile_pairs leaves raw (constants mr_requant_zp does not cover, a clamp narrower than int8, an
 * odd last channel): its accumulators for MR_POINTWISE_TILE pixels at a time (the stack buffer's size; a tile may
 * hold more), requantized the long way into out (channel oc of the tile's first pixel). */
static MR_CONV_NOINLINE void pair_raw(const mr_conv2d_q_params *p, const int32_t *px, int32_t pair_words,
                                      fast_job *job, int32_t cnt, int32_t oc, int32_t oc1, int8_t *out)
{
    int32_t acc[2 * MR_POINTWISE_TILE], k, i;
    const int32_t *const end = job->end;
    for (k = 0; k < cnt; ++k, out += p->geo.out_c) {
        i = k % MR_POINTWISE_TILE;
        if (i == 0) { /* the next piece */
            job->acc = acc; /* tile_pairs advances it */
            job->end = cnt - k > MR_POINTWISE_TILE ? px + (k + MR_POINTWISE_TILE) / 2 * pair_words : end;
            tile_pairs(px + k / 2 * pair_words, job);
        }
        out[oc1 - oc] = (int8_t)requantize_slow(p, oc1, acc[i / 2 * 4 + i % 2 * 2 + 1]); /* pixel i's */
        out[0] = (int8_t)requantize_slow(p, oc, acc[i / 2 * 4 + i % 2 * 2]);
    }
    job->end = end;
}

int mr_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out,
                 void *scratch)
{
    const mr_conv_geometry *g = &p->geo;
    int32_t *const buf = (int32_t *)scratch;
    const int32_t n = g->k_h * g->k_w * g->filter_c, quads = (n + 3) / 4, tail = n % 4, pair_words = 4 * quads;
    const int32_t per_group = g->out_c / (g->in_c / g->filter_c), out_c = g->out_c;
    const int pointwise = conv_is_pointwise(g);
    const conv_layout layout = conv_layout_of(g, CONV_ANY);
    const int32_t row_px = pointwise ? g->batches * g->out_h * g->out_w : g->out_w;
    const int32_t rows = pointwise ? 1 : g->batches * g->out_h, nz = mr_pack2(-p->in_zp);
    const int full = p->act_min == -128 && p->act_max == 127; /* SSAT is the clamp */
    int32_t *px;
    fast_job job; /* the fields a call, band or tile fixes are set there; tile_pairs keeps them */
    int8_t *stage;
    int32_t tile, band, row, first, cnt, k, ch, oc, j;
    tile = buf == NULL ? 0 : conv_tile_pixels(&layout, p->scratch_bytes); /* pixel pairs after the weight slot */
    if (tile < 2) {
        return MR_ERR_SCRATCH;
    }
    px = buf + pair_words;
    stage = (int8_t *)(px + tile / 2 * pair_words);
    band = g->filter_c == g->in_c && tile >= row_px ? tile / row_px : 1;
    job.wx = buf;
    job.passes = (quads + 3) / 4;
    job.skip = (uintptr_t)((quads - 1) % 4 * 44); /* tile_pairs' block: 44 bytes */
    job.step = out_c;
    for (row = 0; row < rows; row += band) {
        const int32_t band_end = (row + band < rows ? row + band : rows) * row_px;
        for (ch = 0; ch < g->in_c; ch += g->filter_c) { /* one group at a time */
            const int32_t oc_first = ch / g->filter_c * per_group, oc_end = oc_first + per_group;
            for (first = row * row_px; first < band_end; first += cnt) {
                cnt = band_end - first < tile ? band_end - first : tile;
                for (k = 0; k < cnt; ++k) {
                    int32_t *slot = px + k / 2 * pair_words + 2 * (k % 2);
                    if (pointwise) { /* the window is the pixel's channels, contiguous */
                        const int8_t *src = in + (first + k) * g->in_c;
                        int8_t last[4];
                        extend(src, n / 4, nz, slot);
                        if (tail) {
                            for (j = 0; j < 4; ++j) {
                                last[j] = j < tail ? src[n / 4 * 4 + j] : (int8_t)p->in_zp;
                            }
                            extend(last, 1, nz, slot + 4 * (n / 4));
                        }
                    } else {
                        gather(p, in, first + k, ch, stage, slot);
                    }
                }
                job.end = px + (cnt + 1) / 2 * pair_words;
                job.last_step = cnt % 2 ? 0 : out_c;
                for (oc = oc_first; oc < oc_end; oc += 2) {
                    const int32_t oc1 = oc + 1 < oc_end ? oc + 1 : oc; /* an odd last channel goes twice */
                    int fast;
                    extend_pair(w + oc * n, w + oc1 * n, n / 4, buf); /* the filters as int16 */
                    for (j = 0; tail && j < 2; ++j) { /* the last block padded with zeros */
                        const int8_t *f = w + (j ? oc1 : oc) * n + n / 4 * 4;
                        int8_t last[4];
                        for (k = 0; k < 4; ++k) {
                            last[k] = k < tail ? f[k] : 0;
                        }
                        extend(last, 1, 0, buf + 2 * j + 4 * (n / 4));
                    }
                    job.b0 = bias ? bias[oc] : 0;
                    job.b1 = bias ? bias[oc1] : 0;
                    job.out = out + first * out_c + oc;
                    fast = mr_requant_zp_of(p->mult[oc], p->shift[oc], p->out_zp, &job.q0) &
                           mr_requant_zp_of(p->mult[oc1], p->shift[oc1], p->out_zp, &job.q1) & full & (oc1 != oc) &
                   !p->single_round;
                    if (fast) {
                        job.acc = NULL;
                        tile_pairs(px, &job);
                    } else {
                        pair_raw(p, px, pair_words, &job, cnt, oc, oc1, job.out);
                    }
                }
            }
        }
    }
    return MR_OK;
}

/*
 * Pointwise layers with at most 8 input channels (mr_conv2d_s8_pw8): with so short a window tile_pairs' fixed
 * costs per 2x2 block outweigh its inner loop, so the roles turn around. Loop structure:
 *   tile of as many pixels as the scratch holds, each pixel's channels padded to 8 and extended into the scratch
 *   (mr_conv2d_s8's pair layout, 2 blocks of 4) > output channel: its bias, requantization constants (made from
 *   mult and shift) and 8 weights, extended, in registers > pixel: 2 LDRD, 4 SMLAD (the first adds the bias),
 *   mr_requant_zp's five instructions, SSAT, a byte store.
 * One assembly call runs a tile's channels (pw8_tile) when every channel qualifies (8 input channels, a bias,
 * mr_requant_zp covers the constants, the clamp is SSAT's); otherwise each channel goes on its own, through
 * pw8_tile with its weights padded with zeros, or through C (requantize_slow). All 14 free registers are taken
 * in the pixel loop, so the pixel count shares one with the shift (ASR reads a register's low byte only).
 */
typedef struct {
    const int32_t *bias, *mult, *shift; /* 0: the next channel's (advanced by pw8_tile) */
    const int8_t *w;                    /* 12: the next channel's 8 weights */
    int8_t *out;                        /* 16: the next channel's output for the tile's first pixel */
    int32_t channels;                   /* 20: channels left */
    int32_t zp21;                       /* 24: 2 * out_zp + 1, i.e. mr_requant_zp's hi = zp21 << (k - 1) */
    int32_t count;                      /* 28: (pixels - 2) * 256 */
    const int32_t *x;                   /* 32: the tile's extended pixels */
    int32_t step;                       /* 36: output bytes from one pixel to the next */
} pw8_job;
/* The offsets pw8_tile reads (LDRD pairs: bias/mult, shift/w, zp21/count). */
MR_CHECK_OFFSET(pw8_job, bias, bias, 0);
MR_CHECK_OFFSET(pw8_job, mult, mult, 4);
MR_CHECK_OFFSET(pw8_job, shift, shift, 8);
MR_CHECK_OFFSET(pw8_job, w, w, 12);
MR_CHECK_OFFSET(pw8_job, out, out, 16);
MR_CHECK_OFFSET(pw8_job, channels, channels, 20);
MR_CHECK_OFFSET(pw8_job, zp21, zp21, 24);
MR_CHECK_OFFSET(pw8_job, count, count, 28);
MR_CHECK_OFFSET(pw8_job, x, x, 32);
MR_CHECK_OFFSET(pw8_job, step, step, 36);

static MR_CONV_NOINLINE void pw8_tile(pw8_job *job)
{
    int32_t bias, hi, mult, kc, we0, wo0, we1, wo1, acc, a, b, st;
    const int32_t *x;
    int8_t *out;
/* One pixel: the bias and the 8 products, requantized into acc; q1 and q0 address its second and first blocks. */
#define MR_PX(q1, q0)                                                                                          \
    "ldrd %[a], %[b], " q1 "\n\t"                                                                              \
    "smlad %[acc], %[a], %[we1], %[bias]\n\t"                                                                  \
    "smlad %[acc], %[b], %[wo1], %[acc]\n\t"                                                                   \
    "ldrd %[a], %[b], " q0 "\n\t"                                                                              \
    "smlad %[acc], %[a], %[we0], %[acc]\n\t"                                                                   \
    "smlad %[acc], %[b], %[wo0], %[acc]\n\t"                                                                   \
    MR_ASM_REQUANT_ZP("acc", "a", "b", "hi", "mult", "kc")
    st = (int32_t)(uintptr_t)job;
    __asm__ volatile("0:\n\t"
                     "ldrd %[a], %[b], [%[st]]\n\t"
                     "ldr %[bias], [%[a]], #4\n\t"
                     "ldr %[mult], [%[b]], #4\n\t"
                     "strd %[a], %[b], [%[st]]\n\t"
                     "ldrd %[a], %[b], [%[st], #8]\n\t"
                     "ldr %[kc], [%[a]], #4\n\t"
                     "ldr %[we1], [%[b], #4]\n\t"
                     "ldr %[we0], [%[b]], #8\n\t"
                     "strd %[a], %[b], [%[st], #8]\n\t"
                     "mvn %[kc], %[kc]\n\t" /* k = -shift - 1 */
                     "sub %[a], %[kc], #1\n\t"
                     "ldrd %[hi], %[b], [%[st], #24]\n\t"
                     "lsl %[hi], %[hi], %[a]\n\t"
                     "add %[kc], %[kc], %[b]\n\t"
                     "sxtb16 %[wo0], %[we0], ror #8\n\t"
                     "sxtb16 %[we0], %[we0]\n\t"
                     "sxtb16 %[wo1], %[we1], ror #8\n\t"
                     "sxtb16 %[we1], %[we1]\n\t"
                     "ldr %[out], [%[st], #16]\n\t"
                     "add %[a], %[out], #1\n\t"
                     "str %[a], [%[st], #16]\n\t"
                     "ldr %[x], [%[st], #32]\n\t"
                     "push {%[st]}\n\t"
                     "ldr %[st], [%[st], #36]\n\t"
                     "cmp %[kc], #0\n\t"
                     "blt 2f\n\t"
                     "1:\n\t"
                     MR_PX("[%[x], #16]", "[%[x]], #8")
                     "strb %[acc], [%[out]]\n\t"
                     MR_PX("[%[x], #16]", "[%[x]], #24")
                     "strb %[acc], [%[out], %[st]]\n\t"
                     "add %[out], %[out], %[st], lsl #1\n\t"
                     "subs %[kc], %[kc], #512\n\t" /* no borrow: two pixels or more left */
                     "bcs 1b\n\t"
                     "tst %[kc], #256\n\t" /* one left */
                     "beq 3f\n\t"
                     "2:\n\t"
                     MR_PX("[%[x], #16]", "[%[x]]")
                     "strb %[acc], [%[out]]\n\t"
                     "3:\n\t"
                     "pop {%[st]}\n\t"
                     "ldr %[a], [%[st], #20]\n\t"
                     "subs %[a], %[a], #1\n\t"
                     "str %[a], [%[st], #20]\n\t"
                     "bne 0b"
                     : [bias] "=&r"(bias), [hi] "=&r"(hi), [mult] "=&r"(mult), [kc] "=&r"(kc), [we0] "=&r"(we0),
                       [wo0] "=&r"(wo0), [we1] "=&r"(we1), [wo1] "=&r"(wo1), [acc] "=&r"(acc), [a] "=&r"(a),
                       [b] "=&r"(b), [x] "=&r"(x), [out] "=&r"(out), [st] "+r"(st)
                     :
                     : "cc", "memory");
#undef MR_PX
}

/* Extends pairs (>= 1) of 8-value pixels minus zp (nz: -zp in both lanes) into dst in mr_conv2d_s8's pair layout:
 * per pair 4 LDR (any alignment), 8 SXTAB16, 4 STRD. */
static MR_CONV_NOINLINE void extend8_pairs(const int8_t *src, int32_t pairs, int32_t nz, int32_t *dst)
{
    uint32_t u, v;
    int32_t e, o;
#define MR_EXT(off)                                                                                            \
    "ldr %[v], [%[s]], #4\n\t"                                                                                 \
    "sxtab16 %[e], %[nz], %[u]\n\t"                                                                            \
    "sxtab16 %[o], %[nz], %[u], ror #8\n\t"                                                                    \
    "strd %[e], %[o], [%[d], #" off "]\n\t"                                                                    \
    "sxtab16 %[e], %[nz], %[v]\n\t"                                                                            \
    "sxtab16 %[o], %[nz], %[v], ror #8\n\t"                                                                    \
    "strd %[e], %[o], [%[d], #" off " + 16]\n\t"
    __asm__ volatile("1:\n\t"
                     "ldr %[u], [%[s]], #4\n\t"
                     MR_EXT("0")
                     "ldr %[u], [%[s]], #4\n\t"
                     MR_EXT("8")
                     "adds %[d], %[d], #32\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b"
                     : [s] "+r"(src), [n] "+r"(pairs), [d] "+r"(dst), [u] "=&r"(u), [v] "=&r"(v), [e] "=&r"(e),
                       [o] "=&r"(o)
                     : [nz] "r"(nz)
                     : "cc", "memory");
#undef MR_EXT
}

/* Whether mr_requant_zp covers channel oc (mr_requant_zp_of's test; calling it here would stop GCC inlining it
 * into mr_conv2d_s8). */
static int pw8_covered(const mr_conv2d_q_params *p, int32_t oc)
{
    return p->mult[oc] >= 0 && p->shift[oc] <= -2 && p->shift[oc] >= -21 && !p->single_round;
}

/* w8: weights padded to 8 a channel (zeros past in_c; mr_conv2d_s8_pw8_padded), else in_c a channel. */
static int pointwise8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                      int8_t *out, int32_t *buf, int w8)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t pixels = g->batches * g->in_h * g->in_w, c = g->in_c, out_c = g->out_c, nz = mr_pack2(-p->in_zp);
    const int32_t wc = w8 ? 8 : c; /* weights a channel */
    const int full = p->act_min == -128 && p->act_max == 127; /* SSAT is the clamp */
    const conv_layout layout = conv_layout_of(g, CONV_PW8);
    int32_t tile = conv_tile_pixels(&layout, p->scratch_bytes), first, cnt, k, oc, j;
    int all = wc == 8 && bias != NULL && full;
    pw8_job job;
    if (buf == NULL || tile < 2) {
        return MR_ERR_SCRATCH;
    }
    for (oc = 0; oc < out_c; ++oc) {
        all &= pw8_covered(p, oc);
    }
    job.zp21 = 2 * p->out_zp + 1;
    job.x = buf;
    job.step = out_c;
    for (first = 0; first < pixels; first += cnt) {
        cnt = pixels - first < tile ? pixels - first : tile;
        job.count = (cnt - 2) * 256;
        k = 0;
        if (c == 8 && cnt > 1) {
            extend8_pairs(in + first * 8, cnt / 2, nz, buf);
            k = cnt / 2 * 2;
        }
        for (; k < cnt; ++k) {
            const int8_t *src = in + (first + k) * c;
            int8_t v[8];
            /* with weights padded by zeros, the 8 bytes from a pixel on serve as they are, inside the input */
            if (c < 8 && !(w8 && (first + k) * c + 8 <= pixels * c)) {
                for (j = 0; j < 8; ++j) {
                    v[j] = j < c ? src[j] : (int8_t)p->in_zp;
                }
                src = v;
            }
            extend(src, 2, nz, buf + k / 2 * 8 + 2 * (k % 2));
        }
        if (all) {
            job.bias = bias;
            job.mult = p->mult;
            job.shift = p->shift;
            job.w = w;
            job.out = out + first * out_c;
            job.channels = out_c;
            pw8_tile(&job);
            continue;
        }
        for (oc = 0; oc < out_c; ++oc) {
            const int8_t *wf = w + oc * wc;
            int8_t *o = out + first * out_c + oc;
            const int32_t b = bias ? bias[oc] : 0;
            mr_conv_requant rq;
            if (pw8_covered(p, oc) & full) {
                int8_t wl[8];
                for (j = 0; j < 8; ++j) {
                    wl[j] = j < c ? wf[j] : 0;
                }
                job.bias = &b;
                job.mult = p->mult + oc;
                job.shift = p->shift + oc;
                job.w = wl;
                job.out = o;
                job.channels = 1;
                pw8_tile(&job);
                continue;
            }
            mr_conv_requant_of(p->mult[oc], p->shift[oc], p->single_round, &rq);
            for (k = 0; k < cnt; ++k) {
                const int8_t *src = in + (first + k) * c;
                int32_t acc = b;
                for (j = 0; j < c; ++j) {
                    acc += (src[j] - p->in_zp) * wf[j];
                }
                acc = mr_conv_requantize(&rq, acc) + p->out_zp;
                o[k * out_c] = (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
            }
        }
    }
    return MR_OK;
}

/* Extends pairs (>= 1) of 16-value pixels minus zp (nz: -zp in both lanes) into dst in the pair layout: per pair
 * 8 LDR (any alignment), 16 SXTAB16, 8 STRD; half the instructions of extend called per pixel. */
static MR_CONV_NOINLINE void extend16_pairs(const int8_t *src, int32_t pairs, int32_t nz, int32_t *dst)
{
    uint32_t u, v;
    int32_t e, o;
#define MR_EXT(q)                                                                                              \
    "ldr %[u], [%[s], #" q " * 4]\n\t"                                                                         \
    "ldr %[v], [%[s], #" q " * 4 + 16]\n\t"                                                                    \
    "sxtab16 %[e], %[nz], %[u]\n\t"                                                                            \
    "sxtab16 %[o], %[nz], %[u], ror #8\n\t"                                                                    \
    "strd %[e], %[o], [%[d], #" q " * 16]\n\t"                                                                 \
    "sxtab16 %[e], %[nz], %[v]\n\t"                                                                            \
    "sxtab16 %[o], %[nz], %[v], ror #8\n\t"                                                                    \
    "strd %[e], %[o], [%[d], #" q " * 16 + 8]\n\t"
    __asm__ volatile("1:\n\t"
                     MR_EXT("0") MR_EXT("1") MR_EXT("2") MR_EXT("3")
                     "adds %[s], %[s], #32\n\t"
                     "adds %[d], %[d], #64\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b"
                     : [s] "+r"(src), [n] "+r"(pairs), [d] "+r"(dst), [u] "=&r"(u), [v] "=&r"(v), [e] "=&r"(e),
                       [o] "=&r"(o)
                     : [nz] "r"(nz)
                     : "cc", "memory");
#undef MR_EXT
}

/*
 * Pointwise layers with 9..16 input channels (mr_conv2d_s8_pw16): mr_conv2d_s8's pointwise loops with every
 * window padded to 16 values, so a channel pair whose constants mr_requant_zp covers runs tile16 (4 blocks
 * straight, the output address in a register) instead of tile_pairs' loop. The weight slot's padding is zeroed
 * once a call; a pixel's padding blocks keep whatever the scratch held (their products with the zero weights are
 * 0). Other channel pairs take tile_pairs (one pass entering at the first block) and requantize_slow. With 16
 * channels a tile's pixel pairs are extended by one extend16_pairs call. Up to 64 output channels the scratch
 * starts with a weight slot per channel pair, all extended once a call (kernels/arm_dsp/conv2d.py
 * dsp_scratch_bytes: 2 KB at most, within the layer's tensors on the shared models); above, one slot refilled per tile and pair as in
 * mr_conv2d_s8. person_detect's 16-channel layer (576 pixels, 32 outputs): 543,400 -> 463,520 instructions
 * (1.57 a MAC); what is left per tile and channel pair is the C loop and the requantization constants.
 */
static int pointwise16(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                       int8_t *out, int32_t *buf)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t pixels = g->batches * g->in_h * g->in_w, c = g->in_c, tail = c % 4, out_c = g->out_c;
    const int32_t nz = mr_pack2(-p->in_zp);
    const int full = p->act_min == -128 && p->act_max == 127; /* SSAT is the clamp */
    int32_t *px;
    fast_job job;
    int32_t tile, first, cnt, k, oc, j;
    /* weight slots: every channel pair's (extended once a call) up to 64 channels, else one (once a tile) */
    const conv_layout layout = conv_layout_of(g, CONV_PW16);
    const int32_t slots = layout.slots;
    tile = buf == NULL ? 0 : conv_tile_pixels(&layout, p->scratch_bytes); /* pixel pairs of 64 bytes after them */
    if (tile < 2) {
        return MR_ERR_SCRATCH;
    }
    px = buf + 16 * slots;
    memset(buf, 0, (size_t)slots * 64);
    for (oc = 0; slots > 1 && oc < out_c; oc += 2) {
        const int32_t oc1 = oc + 1 < out_c ? oc + 1 : oc;
        extend_pair(w + oc * c, w + oc1 * c, c / 4, buf + oc / 2 * 16);
        for (j = 0; tail && j < 2; ++j) { /* the last block padded with zeros */
            const int8_t *f = w + (j ? oc1 : oc) * c + c / 4 * 4;
            int8_t last[4];
            for (k = 0; k < 4; ++k) {
                last[k] = k < tail ? f[k] : 0;
            }
            extend(last, 1, 0, buf + oc / 2 * 16 + 2 * j + 4 * (c / 4));
        }
    }
    job.passes = 1;
    job.skip = 3 * 44; /* tile_pairs enters at its first block */
    job.step = out_c;
    for (first = 0; first < pixels; first += cnt) {
        cnt = pixels - first < tile ? pixels - first : tile;
        k = 0;
        if (c == 16 && cnt > 1) {
            extend16_pairs(in + first * 16, cnt / 2, nz, px);
            k = cnt / 2 * 2;
        }
        for (; k < cnt; ++k) {
            const int8_t *src = in + (first + k) * c;
            int32_t *slot = px + k / 2 * 16 + 2 * (k % 2);
            extend(src, c / 4, nz, slot);
            if (tail) {
                int8_t last[4];
                for (j = 0; j < 4; ++j) {
                    last[j] = j < tail ? src[c / 4 * 4 + j] : (int8_t)p->in_zp;
                }
                extend(last, 1, nz, slot + 4 * (c / 4));
            }
        }
        job.end = px + (cnt + 1) / 2 * 16;
        job.last_step = cnt % 2 ? 0 : out_c;
        for (oc = 0; oc < out_c; oc += 2) {
            const int32_t oc1 = oc + 1 < out_c ? oc + 1 : oc; /* an odd last channel goes twice */
            int fast;
            job.wx = buf + oc / 2 * 16;
            if (slots == 1) {
                job.wx = buf;
                extend_pair(w + oc * c, w + oc1 * c, c / 4, buf);
                for (j = 0; tail && j < 2; ++j) { /* the last block padded with zeros */
                    const int8_t *f = w + (j ? oc1 : oc) * c + c / 4 * 4;
                    int8_t last[4];
                    for (k = 0; k < 4; ++k) {
                        last[k] = k < tail ? f[k] : 0;
                    }
                    extend(last, 1, 0, buf + 2 * j + 4 * (c / 4));
                }
            }
            job.b0 = bias ? bias[oc] : 0;
            job.b1 = bias ? bias[oc1] : 0;
            job.out = out + first * out_c + oc;
            fast = mr_requant_zp_of(p->mult[oc], p->shift[oc], p->out_zp, &job.q0) &
                   mr_requant_zp_of(p->mult[oc1], p->shift[oc1], p->out_zp, &job.q1) & full & (oc1 != oc) &
                   !p->single_round;
            if (fast) {
                tile16(px, &job);
                continue;
            }
            pair_raw(p, px, 16, &job, cnt, oc, oc1, job.out);
        }
    }
    return MR_OK;
}

#endif /* MR_DSP_ASM */

/* flatten: with mr_requant_zp_of inlined here, mr_conv2d_s8 keeps the only two other calls, which GCC then inlines
 * (four make it an out-of-line function, every other convolution 0.3-1% slower). */
__attribute__((flatten)) int mr_conv2d_s8_pw16(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w,
                                               const int32_t *bias, int8_t *out, void *scratch)
{
#if MR_DSP_ASM
    return pointwise16(p, in, w, bias, out, (int32_t *)scratch);
#else
    return mr_conv2d_s8_portable(p, in, w, bias, out, scratch);
#endif
}

int mr_conv2d_s8_pw8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                     int8_t *out, void *scratch)
{
#if MR_DSP_ASM
    return pointwise8(p, in, w, bias, out, (int32_t *)scratch, 0);
#else
    return mr_conv2d_s8_portable(p, in, w, bias, out, scratch);
#endif
}

#if !MR_DSP_ASM
/* mr_conv2d_s8_pw8_padded without the DSP path: TFLite Micro's sums and requantization (mr_conv2d_s8_portable's)
 * over the weights padded to 8 a channel, in mr_conv2d_s8_portable's order (tiles of MR_POINTWISE_TILE pixels,
 * channel by channel within a tile), so the overlap of input and output the arena plan allows that kernel
 * (kernels/overlap.py) holds here too. */
static int pointwise8_padded_c(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w8, const int32_t *bias,
                               int8_t *out)
{
    const mr_conv_geometry *g = &p->geo;
    const int32_t pixels = g->batches * g->in_h * g->in_w, c = g->in_c;
    int32_t first, last, k, oc, j;
    for (first = 0; first < pixels; first = last) {
        last = pixels - first < MR_POINTWISE_TILE ? pixels : first + MR_POINTWISE_TILE;
        for (oc = 0; oc < g->out_c; ++oc) {
            mr_conv_requant rq;
            mr_conv_requant_of(p->mult[oc], p->shift[oc], p->single_round, &rq);
            for (k = first; k < last; ++k) {
                int32_t acc = bias ? bias[oc] : 0;
                for (j = 0; j < c; ++j) {
                    acc += (in[k * c + j] - p->in_zp) * w8[oc * 8 + j];
                }
                acc = mr_conv_requantize(&rq, acc) + p->out_zp;
                out[k * g->out_c + oc] = (int8_t)MR_CLAMP(acc, p->act_min, p->act_max);
            }
        }
    }
    return MR_OK;
}
#endif

int mr_conv2d_s8_pw8_padded(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w8, const int32_t *bias,
                            int8_t *out, void *scratch)
{
#if MR_DSP_ASM
    return pointwise8(p, in, w8, bias, out, (int32_t *)scratch, 1);
#else
    return ((void)scratch, pointwise8_padded_c(p, in, w8, bias, out));
#endif
}

#if !MR_DSP_ASM
int mr_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out,
                 void *scratch)
{
    return mr_conv2d_s8_portable(p, in, w, bias, out, scratch);
}
#endif
