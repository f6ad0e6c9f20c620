/* int16 RSQRT (TFLite Micro elementwise.cc, zero points 0): 1/sqrt(q) by a gemmlowp Newton iteration, then
 * the rescale; a negative input stops the kernel with MR_ERR_DOMAIN. (int8 RSQRT is a table: lut.h.) */
#ifndef MICRO_RELAY_RSQRT_H
#define MICRO_RELAY_RSQRT_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t mult, shift; /* QuantizeMultiplier(1 / (sqrt(in_s) * out_s)), shift already less 20: -31..10 */
} mr_rsqrt_s16_params;

int mr_rsqrt_s16(const mr_rsqrt_s16_params *p, const int16_t *in, int16_t *out);

#endif
