/* take / gather_nd (TFLite GATHER / GATHER_ND, ONNX Gather / GatherND): copy slices of the input picked by
 * int32 or int64 positions, which may be runtime values: any position outside its axis stops the model with
 * MR_ERR_INDEX before anything is read, as TFLite Micro fails the invoke. */
#ifndef MICRO_RELAY_GATHER_H
#define MICRO_RELAY_GATHER_H

#include "crt.h"

/* The input viewed as [batches, outer, axis_size, inner] and the positions as [batches, count]; the output is
 * [batches, outer, count, inner]: for each (b, o, i), the row of `inner_bytes` at position indices[b, i]. */
typedef struct {
    int32_t batches;       /* the leading batch_dims axes, shared by input and positions */
    int32_t outer;         /* input axes between the batch axes and the gathered axis */
    int32_t axis_size;
    int32_t count;         /* positions per batch */
    int32_t inner_bytes;   /* bytes of one gathered row (the axes after the gathered one) */
    int32_t index_bytes;   /* 4: int32 positions, 8: int64 */
    int32_t wrap_negative; /* nonzero: positions in [-axis_size, -1] count from the end (ONNX) */
} mr_gather_params;

int mr_gather(const mr_gather_params *p, const void *in, const void *indices, void *out);

#define MR_GATHER_ND_MAX_DEPTH 6

/* Positions [count, depth] index the first `depth` input axes; each picks a slice of `slice_bytes`. */
typedef struct {
    int32_t count;
    int32_t depth;
    int32_t slice_bytes;
    int32_t index_bytes;                       /* 4: int32 positions, 8: int64 */
    int32_t dims[MR_GATHER_ND_MAX_DEPTH];      /* sizes of the indexed axes */
    int32_t steps[MR_GATHER_ND_MAX_DEPTH];     /* their strides, in slices */
} mr_gather_nd_params;

int mr_gather_nd(const mr_gather_nd_params *p, const void *in, const void *indices, void *out);

#endif
