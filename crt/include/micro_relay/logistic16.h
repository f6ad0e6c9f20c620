/* int16 sigmoid (TFLite LOGISTIC) and tanh (TANH) as TFLite Micro computes them: zero points 0, output scale
 * 2^-15, the input moved to scale 1/12288 by x = (q * mult + 2^(shift-1)) >> shift, then the interpolated
 * sigmoid table (sigmoid_table.h); tanh(x) = 2 sigmoid(2x) - 1 reads it at twice the resolution. */
#ifndef MICRO_RELAY_LOGISTIC16_H
#define MICRO_RELAY_LOGISTIC16_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t mult, shift; /* 0 < mult <= 32767, 0 <= shift <= 31 */
} mr_logistic16_params;

int mr_sigmoid_s16(const mr_logistic16_params *p, const int16_t *in, int16_t *out);
int mr_tanh_s16(const mr_logistic16_params *p, const int16_t *in, int16_t *out);

#endif
