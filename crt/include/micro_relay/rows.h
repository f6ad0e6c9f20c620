/*
 * Row by row through a chain of window layers (schedule/rows.py): convolutions and depthwise convolutions
 * whose intermediate tensors never exist whole. Each intermediate keeps only the rows its consumer's next
 * output rows read, in a rolling buffer in the arena scratch; every row of every layer is computed once, so
 * the results are the layer-by-layer ones, bit for bit.
 *
 * The last layer's rows are made in order, a chunk at a time, into the output; any layer's rows are made on
 * demand: to make rows [x0, x1) of layer i, layer i - 1 first drops the rows below the first their windows
 * read (moving the rest to the front of its buffer), then makes the rows it lacks up to the last those windows
 * read, in the same way, a chunk (its own) at a time; then layer i's own kernel runs once on a geometry cut to
 * those rows: the rows read become the whole input (in_h), the rows made the whole output (out_h), and pad_top
 * says where the first window starts, so taps outside the image stay padding and every kernel runs unchanged.
 *
 * Patches (a grid of the last layer's output, row_cuts x col_cuts): the walk above runs once per patch on the
 * chain cut to it. Going back from the patch, each layer's output rectangle is the window its consumer reads
 * and its input the window it reads itself, clamped to the image; each layer's geometry is cut to those
 * rectangles in rows and columns alike (pad_top and pad_left where its first window starts). Rows and columns
 * in the halo of two patches are computed once per patch (recomputation: the compiler weighs it), so every
 * rolling buffer is only as wide as its patch. A patch narrower than the image reads the first layer's rows
 * gathered into a compact stage (stage_in) and makes the last layer's rows in another (stage_out), from which
 * they are written into the output's columns.
 */
#ifndef MICRO_RELAY_ROWS_H
#define MICRO_RELAY_ROWS_H

#include "conv2d.h"
#include "depthwise_conv2d.h"

/* The most layers one chain holds (the compiler splits longer ones). */
#define MR_ROWS_MAX_STAGES 32

/* Runs layer `stage` of the chain on geometry `g` (the layer's own, cut to some rows), reading `in` and
   writing `out`; `scratch` is the layers' kernel scratch. Generated per chain in NAME.c. */
typedef int (*mr_rows_call)(int32_t stage, const mr_conv_geometry *g, const void *in, void *out, void *scratch);

typedef struct {
    const mr_conv_geometry *geo; /* the layer's whole geometry (batches 1, NHWC) */
    int32_t ring_offset;         /* where its rolling buffer starts in the scratch (unused for the last layer) */
    int32_t chunk;               /* the most rows one call of its kernel makes (1 or more) */
} mr_rows_stage;

typedef struct {
    mr_rows_call call;
    const mr_rows_stage *stages;
    int32_t count;                 /* 2 .. MR_ROWS_MAX_STAGES */
    int32_t itemsize;              /* bytes per element of every tensor of the chain */
    int32_t kernel_scratch_offset; /* where the layers' own kernel scratch starts in the scratch */
    /* the patch grid of the last layer's output: row_cuts[0] = 0 < ... < row_cuts[row_patches] = out_h, the same
       for columns; a null table is one patch of the whole height (or width) */
    const int32_t *row_cuts;
    int32_t row_patches;
    const int32_t *col_cuts;
    int32_t col_patches;
    int32_t walk_offset;      /* where the walk's row counters (4 x count int32_t) are kept in the scratch: the
                                 caller's stack holds none of them */
    int32_t geometry_offset;  /* where the cut geometries (count of them, 4-aligned) are kept in the scratch */
    int32_t stage_in_offset;  /* col_patches > 1: the first layer's rows of a call, gathered */
    int32_t stage_out_offset; /* col_patches > 1: the last layer's rows of a call, before they are written out */
} mr_rows_params;

/* The chain on `in` (the first layer's whole input) into `out` (the last layer's whole output); `scratch`
   holds the rolling buffers and the kernel scratch the compiler planned. The first status other than MR_OK
   any layer returns is returned at once. */
int mr_rows(const mr_rows_params *p, const void *in, void *out, void *scratch);

#endif /* MICRO_RELAY_ROWS_H */
