/* int8 element-wise unary ops as a 256-entry table lookup: the compiler runs the op's integer arithmetic
 * (TFLite Micro's) on every input byte and emits the results (scripts/micro_relay/ops/_unary.py). */
#ifndef MICRO_RELAY_LUT_H
#define MICRO_RELAY_LUT_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t valid_min;   /* inputs below it are outside the op's domain: MR_ERR_DOMAIN (-128: none) */
    const int8_t *table; /* table[q + 128] is the output for input q */
} mr_lut_s8_params;

int mr_lut_s8(const mr_lut_s8_params *p, const int8_t *in, int8_t *out);

#endif
