/* power (TFLite POW): out = powf(a, b), numpy broadcasting (see elementwise.h); float32. */
#ifndef MICRO_RELAY_POWER_H
#define MICRO_RELAY_POWER_H

#include "binary.h"

int mr_power_f32(const mr_binary_params *p, const float *a, const float *b, float *out);

#endif
