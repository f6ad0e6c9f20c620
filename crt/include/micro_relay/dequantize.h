/*
 * qnn.dequantize (TFLite DEQUANTIZE): out = float(double(scale) * (q - zero_point)).
 * (q - zp) is exact in float and the double product is exact, so TFLite Micro's result is the correctly
 * rounded product, which one float multiply also gives: no double arithmetic on single-precision FPUs.
 */
#ifndef MICRO_RELAY_DEQUANTIZE_H
#define MICRO_RELAY_DEQUANTIZE_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t zp;
    float scale;
} mr_dequantize_params;

int mr_dequantize_s8(const mr_dequantize_params *p, const int8_t *in, float *out);
int mr_dequantize_u8(const mr_dequantize_params *p, const uint8_t *in, float *out);
int mr_dequantize_s16(const mr_dequantize_params *p, const int16_t *in, float *out);

#endif
