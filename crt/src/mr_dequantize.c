/* qnn.dequantize kernels, bit-exact with TFLite Micro's reference DEQUANTIZE (TFLM_ARITHMETIC.md sec. 6). */
#include "micro_relay/dequantize.h"

/* One float multiply: the correctly rounded product, as TFLite Micro's double product rounded to float. */
#define MR_DEQUANTIZE(NAME, IN_T)                                                       \
    int NAME(const mr_dequantize_params *p, const IN_T *in, float *out)                 \
    {                                                                                   \
        int32_t i;                                                                      \
        for (i = 0; i < p->size; ++i) {                                                 \
            out[i] = p->scale * (float)((int32_t)in[i] - p->zp);                       \
        }                                                                               \
        return MR_OK;                                                                   \
    }

MR_DEQUANTIZE(mr_dequantize_s8, int8_t)
MR_DEQUANTIZE(mr_dequantize_u8, uint8_t)
MR_DEQUANTIZE(mr_dequantize_s16, int16_t)
