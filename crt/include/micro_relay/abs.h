/* int16 ABS (TFLite Micro elementwise.cc): |q| rescaled to the output scale when the scales differ. */
#ifndef MICRO_RELAY_ABS_H
#define MICRO_RELAY_ABS_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t rescale;     /* 0: input and output scales are equal, |q| is stored saturated */
    int32_t mult, shift; /* QuantizeMultiplier(float(in_s / out_s)) */
} mr_abs_s16_params;

int mr_abs_s16(const mr_abs_s16_params *p, const int16_t *in, int16_t *out);

#endif
