/* nn.layer_norm (ONNX LayerNormalization), float32: each row normalized to mean 0 and variance 1, then
 * scaled by gamma and shifted by beta (both one value per element of a row). */
#ifndef MICRO_RELAY_LAYER_NORM_H
#define MICRO_RELAY_LAYER_NORM_H

#include "crt.h"

typedef struct {
    int32_t outer, inner; /* rows, and values per row (the normalized axes) */
    float epsilon;
} mr_layer_norm_f32_params;

int mr_layer_norm_f32(const mr_layer_norm_f32_params *p, const float *in, const float *gamma, const float *beta,
                      float *out);

#endif
