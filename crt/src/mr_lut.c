/* int8 table lookup (lut.h). An input below valid_min stops the kernel with MR_ERR_DOMAIN, where TFLite
 * Micro's Invoke fails (RSQRT of a value below the zero point). */
#include "micro_relay/lut.h"

int mr_lut_s8(const mr_lut_s8_params *p, const int8_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t q = in[i];
        if (q < p->valid_min) {
            return MR_ERR_DOMAIN;
        }
        out[i] = p->table[q + 128];
    }
    return MR_OK;
}
