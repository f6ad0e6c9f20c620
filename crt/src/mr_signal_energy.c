/* signal.energy kernel: each square fits int32 (at most 2^30); the sum is taken in uint32. */
#include "micro_relay/signal_energy.h"

int mr_signal_energy(const mr_signal_energy_params *p, const int16_t *in, uint32_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        if (i < p->start || i >= p->end) {
            out[i] = 0u;
        } else {
            const int32_t re = in[2 * i];
            const int32_t im = in[2 * i + 1];
            out[i] = (uint32_t)(re * re) + (uint32_t)(im * im);
        }
    }
    return MR_OK;
}
