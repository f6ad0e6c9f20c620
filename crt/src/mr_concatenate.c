/* concatenate kernel: a raw copy, as TFLite Micro's reference Concatenation (TFLM_ARITHMETIC.md sec. 7);
 * int8 inputs share the output's quantization (checked at compile time), so nothing is rescaled. */
#include <string.h>

#include "micro_relay/concatenate.h"

int mr_concatenate(const mr_concatenate_params *p, const void *const *inputs, void *out)
{
    uint8_t *dst = (uint8_t *)out;
    int32_t row, i;
    for (row = 0; row < p->outer; ++row) {
        for (i = 0; i < p->num_inputs; ++i) {
            const size_t n = (size_t)p->row_bytes[i];
            memcpy(dst, (const uint8_t *)inputs[i] + (size_t)row * n, n);
            dst += n;
        }
    }
    return MR_OK;
}
