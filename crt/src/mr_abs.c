/* int16 ABS, bit-exact with TFLite Micro's (zero points 0): out = clamp(rescale ? MBQM(|q|, M, s) : |q|). */
#include "micro_relay/abs.h"
#include "micro_relay/fixedpoint.h"

int mr_abs_s16(const mr_abs_s16_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t q = in[i];
        int32_t y = q < 0 ? -q : q;
        if (p->rescale) {
            y = mr_mbqm(y, p->mult, p->shift);
        }
        out[i] = (int16_t)MR_CLAMP(y, INT16_MIN, INT16_MAX);
    }
    return MR_OK;
}
