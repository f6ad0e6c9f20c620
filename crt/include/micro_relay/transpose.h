/* transpose: permute the axes of a tensor (ONNX Transpose / Relax permute_dims), any element type. */
#ifndef MICRO_RELAY_TRANSPOSE_H
#define MICRO_RELAY_TRANSPOSE_H

#include "crt.h"

#define MR_TRANSPOSE_MAX_DIMS 6

/* The output walked in row-major order, outermost axis first; unused outer axes have size 1. For each
 * output axis, `in_step` is how many input elements one step along it moves (the stride of the input axis
 * the permutation maps there). The compiler drops size-1 axes and merges runs of axes that stay adjacent. */
typedef struct {
    int32_t elem_size;                       /* bytes per element: the copy is raw */
    int32_t out_dims[MR_TRANSPOSE_MAX_DIMS];
    int32_t in_step[MR_TRANSPOSE_MAX_DIMS];  /* in elements */
} mr_transpose_params;

int mr_transpose(const mr_transpose_params *p, const void *in, void *out);

#endif
