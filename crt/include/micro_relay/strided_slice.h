/* strided_slice (TFLite STRIDED_SLICE): gather a strided box of the input, steps possibly negative. */
#ifndef MICRO_RELAY_STRIDED_SLICE_H
#define MICRO_RELAY_STRIDED_SLICE_H

#include "crt.h"

#define MR_STRIDED_SLICE_MAX_DIMS 5

/* out[i0..i4] = in[start + sum_k i_k * steps[k]], in elements, outermost axis first; unused outer axes have
 * size 1. The compiler merges axes that walk the input as one, so a slice of whole rows is a few memcpys. */
typedef struct {
    int32_t elem_size;                          /* bytes per element (the copy is raw) */
    int32_t start;                              /* element offset of out[0] in the input */
    int32_t dims[MR_STRIDED_SLICE_MAX_DIMS];    /* output dims */
    int32_t steps[MR_STRIDED_SLICE_MAX_DIMS];   /* input element step per output index */
} mr_strided_slice_params;

int mr_strided_slice(const mr_strided_slice_params *p, const void *in, void *out);

#endif
