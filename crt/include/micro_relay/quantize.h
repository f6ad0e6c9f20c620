/* qnn.quantize (TFLite QUANTIZE): float -> int8/int16, and requantization between integer types. */
#ifndef MICRO_RELAY_QUANTIZE_H
#define MICRO_RELAY_QUANTIZE_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t out_zp;
    float scale;      /* output scale */
    float lo, hi;     /* type range minus the zero point: round(x / scale) saturates here */
    int32_t ties_even; /* nonzero: halves round to even (ONNX QuantizeLinear, rintf), else away from zero */
} mr_quantize_f32_params;

typedef struct {
    int32_t size;
    int32_t out_zp;
    int32_t in_zp;
    int32_t mult, shift; /* in_s / out_s */
    int32_t single_round; /* int8 to int8: nonzero for one rounding (mr_requant_single) */
} mr_requantize_params;

int mr_quantize_f32_s8(const mr_quantize_f32_params *p, const float *in, int8_t *out);
int mr_quantize_f32_s16(const mr_quantize_f32_params *p, const float *in, int16_t *out);

int mr_quantize_s8_s8(const mr_requantize_params *p, const int8_t *in, int8_t *out);
int mr_quantize_s8_u8(const mr_requantize_params *p, const int8_t *in, uint8_t *out);
int mr_quantize_s8_s16(const mr_requantize_params *p, const int8_t *in, int16_t *out);
int mr_quantize_s8_s32(const mr_requantize_params *p, const int8_t *in, int32_t *out);
int mr_quantize_s16_s8(const mr_requantize_params *p, const int16_t *in, int8_t *out);
int mr_quantize_s16_s16(const mr_requantize_params *p, const int16_t *in, int16_t *out);
int mr_quantize_s16_s32(const mr_requantize_params *p, const int16_t *in, int32_t *out);
int mr_quantize_s32_s8(const mr_requantize_params *p, const int32_t *in, int8_t *out);
int mr_quantize_s32_s16(const mr_requantize_params *p, const int32_t *in, int16_t *out);
int mr_quantize_u8_s8(const mr_requantize_params *p, const uint8_t *in, int8_t *out);

#endif
