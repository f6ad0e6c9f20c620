/* signal.spectral_subtraction kernel: the smoothing filter's products and sum in uint64 (wrapping, as in
 * TFLite Micro), the estimate kept as uint32. Each channel reads its old estimate before writing the new one,
 * so noise_out may be noise_in. */
#include "micro_relay/signal_spectral_subtraction.h"

int mr_signal_spectral_subtraction(const mr_signal_spectral_subtraction_params *p, const uint32_t *in,
                                   const uint32_t *noise_in, uint32_t *out, uint32_t *noise_out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t odd = i & 1;
        const uint64_t smoothing = odd ? p->alternate_smoothing : p->smoothing;
        const uint64_t one_minus = odd ? p->alternate_one_minus_smoothing : p->one_minus_smoothing;
        const uint32_t up = in[i] << p->smoothing_bits;
        uint32_t noise = (uint32_t)(((uint64_t)up * smoothing + (uint64_t)noise_in[i] * one_minus) >> p->bits);
        uint32_t estimate = noise, floor, subtracted;
        if (estimate > up) {
            estimate = up;
            if (p->clamping) {
                noise = up;
            }
        }
        floor = (uint32_t)(((uint64_t)in[i] * p->min_signal_remaining) >> p->bits);
        subtracted = (up - estimate) >> p->smoothing_bits;
        out[i] = subtracted > floor ? subtracted : floor;
        noise_out[i] = noise;
    }
    return MR_OK;
}
