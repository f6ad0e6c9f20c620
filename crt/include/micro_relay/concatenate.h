/* concatenate (TFLite CONCATENATION): join tensors along one axis, a raw copy. */
#ifndef MICRO_RELAY_CONCATENATE_H
#define MICRO_RELAY_CONCATENATE_H

#include "crt.h"

/* Seen from the axis, every tensor is `outer` rows; a row of input i is row_bytes[i] contiguous bytes
 * (its size along the axis times everything after the axis), and an output row is all of them in order. */
typedef struct {
    int32_t num_inputs;
    int32_t outer;                /* product of the dims before the axis */
    const int32_t *row_bytes;     /* num_inputs entries */
} mr_concatenate_params;

int mr_concatenate(const mr_concatenate_params *p, const void *const *inputs, void *out);

#endif
