/*
 * Row by row through a chain of window layers (micro_relay/rows.h has the algorithm). The compiler checked
 * every layer's window reads at least one image row for each output row, sized each rolling buffer to the
 * most rows its layer ever holds (schedule/rows.py, the same walk), and placed the output so that row r is
 * written only over input rows no later row reads.
 */
#include "micro_relay/rows.h"

#include <string.h>

/* The input rows [*first, *end) a window walk reads for its output rows [lo, hi), clamped to the image. */
static void window_rows(const mr_conv_geometry *g, int32_t lo, int32_t hi, int32_t *first, int32_t *end)
{
    int32_t a = lo * g->stride_h - g->pad_top;
    int32_t b = (hi - 1) * g->stride_h - g->pad_top + (g->k_h - 1) * g->dil_h + 1;
    a = a < 0 ? 0 : a > g->in_h ? g->in_h : a;
    b = b > g->in_h ? g->in_h : b < a ? a : b;
    *first = a;
    *end = b;
}

/* Drops the rows of layer i's buffer below row `keep` (the rest move to its front). */
static void drop_below(const mr_rows_params *p, uint8_t *work, int32_t i, int32_t keep, int32_t *held_lo,
                       int32_t *held_end)
{
    const mr_conv_geometry *g = p->stages[i].geo;
    const size_t row = (size_t)g->out_w * (size_t)g->out_c * (size_t)p->itemsize;
    uint8_t *ring = work + p->stages[i].ring_offset;
    if (keep <= held_lo[i]) {
        return;
    }
    if (held_end[i] > keep) {
        memmove(ring, ring + (size_t)(keep - held_lo[i]) * row, (size_t)(held_end[i] - keep) * row);
    } else {
        held_end[i] = keep;
    }
    held_lo[i] = keep;
}

int mr_rows(const mr_rows_params *p, const void *in, void *out, void *scratch)
{
    int32_t held_lo[MR_ROWS_MAX_STAGES], held_end[MR_ROWS_MAX_STAGES], lo[MR_ROWS_MAX_STAGES], hi[MR_ROWS_MAX_STAGES];
    uint8_t *const work = (uint8_t *)scratch;
    void *const kernel_scratch = work + p->kernel_scratch_offset;
    const int32_t n = p->count;
    int32_t rows, r, i;
    if (n < 2 || n > MR_ROWS_MAX_STAGES) { /* more layers than this runtime keeps rows for */
        return MR_ERR_SCRATCH;
    }
    rows = p->stages[n - 1].geo->out_h;
    for (i = 0; i < n; i++) {
        if (p->stages[i].chunk < 1) {
            return MR_ERR_SCRATCH;
        }
        held_lo[i] = held_end[i] = 0;
    }
    for (r = 0; r < rows; r += p->stages[n - 1].chunk) {
        lo[n - 1] = r;
        hi[n - 1] = r + p->stages[n - 1].chunk < rows ? r + p->stages[n - 1].chunk : rows;
        i = n - 1;
        for (;;) { /* rows [lo[i], hi[i]) of layer i, once layer i - 1 holds every row their windows read */
            const mr_conv_geometry *g = p->stages[i].geo;
            const size_t row_out = (size_t)g->out_w * (size_t)g->out_c * (size_t)p->itemsize;
            const uint8_t *src = (const uint8_t *)in;
            int32_t a, b, src_lo = 0, status;
            uint8_t *dst;
            mr_conv_geometry cut;
            window_rows(g, lo[i], hi[i], &a, &b);
            if (i > 0) {
                drop_below(p, work, i - 1, a, held_lo, held_end);
                if (held_end[i - 1] < b) { /* layer i - 1 makes the rows it lacks first, a chunk at a time */
                    lo[i - 1] = held_end[i - 1];
                    hi[i - 1] = b - lo[i - 1] < p->stages[i - 1].chunk ? b : lo[i - 1] + p->stages[i - 1].chunk;
                    i--;
                    continue;
                }
                src = work + p->stages[i - 1].ring_offset;
                src_lo = held_lo[i - 1];
            }
            dst = i == n - 1 ? (uint8_t *)out + (size_t)lo[i] * row_out
                             : work + p->stages[i].ring_offset + (size_t)(lo[i] - held_lo[i]) * row_out;
            cut = *g;
            cut.in_h = b - a;
            cut.out_h = hi[i] - lo[i];
            cut.pad_top = a - (lo[i] * g->stride_h - g->pad_top);
            status = p->call(i, &cut, src + (size_t)(a - src_lo) * (size_t)g->in_w * (size_t)g->in_c *
                                               (size_t)p->itemsize, dst, kernel_scratch);
            if (status != MR_OK) {
                return status;
            }
            if (i == n - 1) {
                break;
            }
            held_end[i] = hi[i];
            i++;
        }
    }
    return MR_OK;
}
