/* mirror_pad (TFLite MIRROR_PAD, ONNX Pad mode reflect): pad each axis with its own mirror image, REFLECT
 * (the edge element not repeated) or SYMMETRIC (repeated). */
#ifndef MICRO_RELAY_MIRROR_PAD_H
#define MICRO_RELAY_MIRROR_PAD_H

#include "crt.h"

#define MR_MIRROR_PAD_MAX_DIMS 5

/* Unused outer axes have size 1 and no padding. Pads are at most dim - 1 (REFLECT) or dim (SYMMETRIC), so one
 * reflection reaches every output index. */
typedef struct {
    int32_t elem_size;
    int32_t symmetric;                           /* 0: REFLECT, 1: SYMMETRIC */
    int32_t in_dims[MR_MIRROR_PAD_MAX_DIMS];
    int32_t before[MR_MIRROR_PAD_MAX_DIMS];      /* padding ahead of each axis */
    int32_t out_dims[MR_MIRROR_PAD_MAX_DIMS];
} mr_mirror_pad_params;

int mr_mirror_pad(const mr_mirror_pad_params *p, const void *in, void *out);

#endif
