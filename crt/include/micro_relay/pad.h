/* nn.pad (TFLite PAD / PADV2): copy the input into the middle of the output, fill the border with one value. */
#ifndef MICRO_RELAY_PAD_H
#define MICRO_RELAY_PAD_H

#include "crt.h"

#define MR_PAD_MAX_DIMS 5

/* A fixed-rank view, outermost axis first; unused outer axes have size 1 and no padding. The compiler
 * merges axes the padding does not split, so the last axis is usually one long memcpy run. */
typedef struct {
    int32_t elem_size;                 /* bytes per element (any element type: the copy is raw) */
    int32_t in_dims[MR_PAD_MAX_DIMS];
    int32_t before[MR_PAD_MAX_DIMS];   /* elements of padding before / after the input, per axis */
    int32_t after[MR_PAD_MAX_DIMS];
    const void *value;                 /* one element: the pad value, in the tensor's own type */
} mr_pad_params;

int mr_pad(const mr_pad_params *p, const void *in, void *out);

#endif
