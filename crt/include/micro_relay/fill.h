/* full / zeros_like (TFLite FILL / ZEROS_LIKE, ONNX ConstantOfShape): an output of one repeated element. */
#ifndef MICRO_RELAY_FILL_H
#define MICRO_RELAY_FILL_H

#include "crt.h"

typedef struct {
    int32_t elem_size; /* bytes per element */
    int32_t count;     /* output elements */
} mr_fill_params;

/* out[i] = *value for every element (value: one element, which may be a runtime tensor). */
int mr_fill(const mr_fill_params *p, const void *value, void *out);

/* Every output byte 0: integer 0, float +0.0f and false alike. */
int mr_fill_zero(const mr_fill_params *p, void *out);

#endif
