/* image.resize2d (TFLite RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR) on NHWC tensors. The compiler computes
 * which input row and column every output row and column reads (and the bilinear weights) exactly as
 * TFLite Micro does per pixel, into constant tables; the kernels only index and blend. */
#ifndef MICRO_RELAY_RESIZE2D_H
#define MICRO_RELAY_RESIZE2D_H

#include "crt.h"

typedef struct {
    int32_t batches, in_h, in_w, channels, out_h, out_w;
    int32_t elem_size;              /* bytes per element: the copy is raw */
    const int32_t *rows, *cols;     /* input row of each output row [out_h], input column of each column [out_w] */
} mr_resize_nearest_params;

typedef struct {
    int32_t batches, in_h, in_w, channels, out_h, out_w;
    const int32_t *row_lo, *row_hi; /* [out_h]: the two input rows each output row blends */
    const int32_t *col_lo, *col_hi; /* [out_w] */
    const int32_t *row_weight, *col_weight; /* integer: weight of the hi row / column in 1/1024 (NULL for float) */
    const float *row_frac, *col_frac;       /* float: fractional position past the lo row / column (NULL for int) */
} mr_resize_bilinear_params;

int mr_resize_nearest(const mr_resize_nearest_params *p, const void *in, void *out);
int mr_resize_bilinear_s8(const mr_resize_bilinear_params *p, const int8_t *in, int8_t *out);
int mr_resize_bilinear_s16(const mr_resize_bilinear_params *p, const int16_t *in, int16_t *out);
int mr_resize_bilinear_f32(const mr_resize_bilinear_params *p, const float *in, float *out);

#endif
