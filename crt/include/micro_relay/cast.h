/* cast (TFLite CAST, ONNX Cast): element-wise type conversion between int8, int16, int32, uint32, float32
 * and bool (one byte), with TFLite Micro's results: integers wrap modulo 2^bits, floats truncate toward zero
 * and saturate to the integer range (NaN becomes 0), anything nonzero becomes true. Quantization is ignored. */
#ifndef MICRO_RELAY_CAST_H
#define MICRO_RELAY_CAST_H

#include "crt.h"

typedef struct {
    int32_t count;
    int32_t in_type;  /* MR_INT8, MR_INT16, MR_INT32, MR_UINT32, MR_FLOAT32 or MR_BOOL */
    int32_t out_type; /* likewise */
} mr_cast_params;

int mr_cast(const mr_cast_params *p, const void *in, void *out);

#endif
