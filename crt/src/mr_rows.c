/*
 * Row by row through a chain of window layers, patch by patch (micro_relay/rows.h has the algorithm). The
 * compiler checked every layer's window reads at least one image row (and, with column patches, one image
 * column) for each output row (column), sized each rolling buffer to the most rows its layer ever holds, as
 * wide as its widest patch (schedule/rows.py, the same walk), and placed the output so that no write lands on
 * input bytes a later step reads.
 */
#include "micro_relay/rows.h"

#include <string.h>

/* The input positions [*first, *end) a window walk reads for its output positions [lo, hi) along one axis,
   clamped to the image's `size`. */
static void window_span(int32_t stride, int32_t pad, int32_t k, int32_t dil, int32_t size, int32_t lo, int32_t hi,
                        int32_t *first, int32_t *end)
{
    int32_t a = lo * stride - pad;
    int32_t b = (hi - 1) * stride - pad + (k - 1) * dil + 1;
    a = a < 0 ? 0 : a > size ? size : a;
    b = b > size ? size : b < a ? a : b;
    *first = a;
    *end = b;
}

static size_t row_bytes(const mr_conv_geometry *g, int32_t itemsize)
{
    return (size_t)g->out_w * (size_t)g->out_c * (size_t)itemsize;
}

/* Cuts every layer's geometry to the patch rows [r0, r1) x columns [c0, c1) of the last layer's output, into
   `cut`; *in_row and *in_col: where the first layer's cut input starts in the chain's input. */
static void cut_chain(const mr_rows_params *p, int32_t r0, int32_t r1, int32_t c0, int32_t c1,
                      mr_conv_geometry *cut, int32_t *in_row, int32_t *in_col)
{
    int32_t i;
    for (i = p->count - 1; i >= 0; i--) {
        const mr_conv_geometry *g = p->stages[i].geo;
        int32_t a, b, ca, cb;
        window_span(g->stride_h, g->pad_top, g->k_h, g->dil_h, g->in_h, r0, r1, &a, &b);
        cut[i] = *g;
        cut[i].in_h = b - a;
        cut[i].out_h = r1 - r0;
        cut[i].pad_top = a - (r0 * g->stride_h - g->pad_top);
        if (p->col_patches > 1) { /* one column patch keeps every layer's whole width */
            window_span(g->stride_w, g->pad_left, g->k_w, g->dil_w, g->in_w, c0, c1, &ca, &cb);
            cut[i].in_w = cb - ca;
            cut[i].out_w = c1 - c0;
            cut[i].pad_left = ca - (c0 * g->stride_w - g->pad_left);
        } else {
            ca = 0;
            cb = g->in_w;
        }
        r0 = a;
        r1 = b;
        c0 = ca;
        c1 = cb;
    }
    *in_row = r0;
    *in_col = c0;
}

/* Drops the rows of layer i's buffer below row `keep` (the rest move to its front). */
static void drop_below(uint8_t *ring, size_t row, int32_t keep, int32_t *held_lo, int32_t *held_end)
{
    if (keep <= *held_lo) {
        return;
    }
    if (*held_end > keep) {
        memmove(ring, ring + (size_t)(keep - *held_lo) * row, (size_t)(*held_end - keep) * row);
    } else {
        *held_end = keep;
    }
    *held_lo = keep;
}

/* `rows` rows of `span` bytes from `src` (a row every src_stride bytes) to `dst` (every dst_stride bytes): a patch's
   columns gathered from an image into a compact buffer, or written back. */
static void copy_rows(uint8_t *dst, size_t dst_stride, const uint8_t *src, size_t src_stride, size_t span,
                      int32_t rows)
{
    int32_t r;
    for (r = 0; r < rows; r++) {
        memcpy(dst + (size_t)r * dst_stride, src + (size_t)r * src_stride, span);
    }
}

/* The walk of micro_relay/rows.h through one patch: `cut_or_null` the chain's geometries cut to it (NULL: the
   layers' own, for the one patch of the whole output), its first layer's
   input starting at row in_row and column in_col of the chain's input, its last layer's output at row out_row
   and column out_col of the chain's output. */
static int walk_patch(const mr_rows_params *p, const mr_conv_geometry *cut_or_null, const void *in, void *out,
                      uint8_t *work, int32_t in_row, int32_t in_col, int32_t out_row, int32_t out_col)
{
    const int32_t n = p->count;
    int32_t *const held_lo = (int32_t *)(void *)(work + p->walk_offset), *const held_end = held_lo + n;
    int32_t *const lo = held_end + n, *const hi = lo + n;
#define CUT(i) (cut_or_null ? &cut_or_null[i] : p->stages[i].geo)
    const int32_t rows = CUT(n - 1)->out_h;
    const int narrow = p->col_patches > 1;
    const mr_conv_geometry *first = p->stages[0].geo, *last = p->stages[n - 1].geo;
    const size_t in_pixel = (size_t)first->in_c * (size_t)p->itemsize;
    const size_t out_pixel = (size_t)last->out_c * (size_t)p->itemsize;
    int32_t r, i;
    for (i = 0; i < n; i++) {
        held_lo[i] = held_end[i] = 0;
    }
    for (r = 0; r < rows; r += p->stages[n - 1].chunk) {
        lo[n - 1] = r;
        hi[n - 1] = r + p->stages[n - 1].chunk < rows ? r + p->stages[n - 1].chunk : rows;
        i = n - 1;
        for (;;) { /* rows [lo[i], hi[i]) of layer i, once layer i - 1 holds every row their windows read */
            const mr_conv_geometry *g = CUT(i);
            const size_t row_out = row_bytes(g, p->itemsize);
            const uint8_t *src;
            int32_t a, b, status;
            uint8_t *dst;
            mr_conv_geometry call = *g;
            window_span(g->stride_h, g->pad_top, g->k_h, g->dil_h, g->in_h, lo[i], hi[i], &a, &b);
            if (i > 0) {
                const size_t row_in = row_bytes(CUT(i - 1), p->itemsize);
                uint8_t *ring = work + p->stages[i - 1].ring_offset;
                drop_below(ring, row_in, a, &held_lo[i - 1], &held_end[i - 1]);
                if (held_end[i - 1] < b) { /* layer i - 1 makes the rows it lacks first, a chunk at a time */
                    lo[i - 1] = held_end[i - 1];
                    hi[i - 1] = b - lo[i - 1] < p->stages[i - 1].chunk ? b : lo[i - 1] + p->stages[i - 1].chunk;
                    i--;
                    continue;
                }
                src = ring + (size_t)(a - held_lo[i - 1]) * row_in;
            } else if (narrow) { /* the rows this call reads, gathered from the input's columns */
                const size_t span = (size_t)g->in_w * in_pixel;
                copy_rows(work + p->stage_in_offset, span,
                          (const uint8_t *)in + ((size_t)(in_row + a) * (size_t)first->in_w + (size_t)in_col) *
                                                    in_pixel,
                          (size_t)first->in_w * in_pixel, span, b - a);
                src = work + p->stage_in_offset;
            } else {
                src = (const uint8_t *)in + (size_t)(in_row + a) * (size_t)g->in_w * in_pixel;
            }
            if (i < n - 1) {
                dst = work + p->stages[i].ring_offset + (size_t)(lo[i] - held_lo[i]) * row_out;
            } else if (narrow) {
                dst = work + p->stage_out_offset;
            } else {
                dst = (uint8_t *)out + (size_t)(out_row + lo[i]) * row_out;
            }
            call.in_h = b - a;
            call.out_h = hi[i] - lo[i];
            call.pad_top = a - (lo[i] * g->stride_h - g->pad_top);
            status = p->call(i, &call, src, dst, work + p->kernel_scratch_offset);
            if (status != MR_OK) {
                return status;
            }
            if (i == n - 1) {
                if (narrow) { /* the rows made, into the output's columns */
                    copy_rows((uint8_t *)out + ((size_t)(out_row + lo[i]) * (size_t)last->out_w + (size_t)out_col) *
                                                   out_pixel,
                              (size_t)last->out_w * out_pixel, dst, row_out, row_out, hi[i] - lo[i]);
                }
                break;
            }
            held_end[i] = hi[i];
            i++;
        }
    }
#undef CUT
    return MR_OK;
}

int mr_rows(const mr_rows_params *p, const void *in, void *out, void *scratch)
{
    uint8_t *const work = (uint8_t *)scratch;
    mr_conv_geometry *const cut = (mr_conv_geometry *)(void *)(work + p->geometry_offset);
    const int whole = p->row_patches == 1 && p->col_patches == 1;
    const int32_t n = p->count;
    int32_t i, pr, pc;
    if (n < 2 || n > MR_ROWS_MAX_STAGES || p->row_patches < 1 || p->col_patches < 1) {
        return MR_ERR_SCRATCH; /* more layers than this runtime keeps rows for, or no patch */
    }
    for (i = 0; i < n; i++) {
        if (p->stages[i].chunk < 1) {
            return MR_ERR_SCRATCH;
        }
    }
    for (pr = 0; pr < p->row_patches; pr++) {
        const int32_t r0 = p->row_cuts ? p->row_cuts[pr] : 0;
        const int32_t r1 = p->row_cuts ? p->row_cuts[pr + 1] : p->stages[n - 1].geo->out_h;
        for (pc = 0; pc < p->col_patches; pc++) {
            const int32_t c0 = p->col_cuts ? p->col_cuts[pc] : 0;
            const int32_t c1 = p->col_cuts ? p->col_cuts[pc + 1] : p->stages[n - 1].geo->out_w;
            int32_t in_row, in_col, status;
            if (whole) { /* one patch: the layers' own geometries, no scratch for cut ones */
                in_row = in_col = 0;
            } else {
                cut_chain(p, r0, r1, c0, c1, cut, &in_row, &in_col);
            }
            status = walk_patch(p, whole ? NULL : cut, in, out, work, in_row, in_col, r0, c0);
            if (status != MR_OK) {
                return status;
            }
        }
    }
    return MR_OK;
}
