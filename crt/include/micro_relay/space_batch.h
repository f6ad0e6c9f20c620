/* space_to_batch_nd / batch_to_space_nd (TFLite SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND) on NHWC data (a 3-D
 * input is the compiler's [n, h, 1, c]): the block_h x block_w phases of the padded image become batches, and
 * back. Batch index = (phase_y * block_w + phase_x) * batches + b, as TensorFlow orders them. */
#ifndef MICRO_RELAY_SPACE_BATCH_H
#define MICRO_RELAY_SPACE_BATCH_H

#include "crt.h"

typedef struct {
    int32_t batches;      /* of the image side: the input of space_to_batch, the output of batch_to_space */
    int32_t image_h, image_w;
    int32_t grid_h, grid_w; /* spatial size of the batch side */
    int32_t block_h, block_w;
    int32_t offset_h, offset_w; /* padding before (space_to_batch) or crop before (batch_to_space) */
    int32_t pixel_bytes;  /* channels * element size */
    int32_t pad_byte;     /* space_to_batch: the byte padding pixels are filled with (the zero point) */
} mr_space_batch_params;

int mr_space_to_batch_nd(const mr_space_batch_params *p, const void *in, void *out);
int mr_batch_to_space_nd(const mr_space_batch_params *p, const void *in, void *out);

#endif
