/* signal.filter_bank kernel: products and sums in uint64 with wrap, an int16 weight converted to uint64
 * first (a negative weight wraps), as TFLite Micro computes them. */
#include "micro_relay/signal_filter_bank.h"

int mr_signal_filter_bank(const mr_signal_filter_bank_params *p, const uint32_t *spectrum, uint64_t *out)
{
    uint64_t weighted = 0u;
    int32_t c, j;
    for (c = 0; c < p->channels; ++c) {
        const uint32_t *bins = spectrum + p->freq_starts[c];
        const int16_t *w = p->weights + p->weight_starts[c];
        const int16_t *u = p->unweights + p->weight_starts[c];
        uint64_t unweighted = 0u;
        for (j = 0; j < p->widths[c]; ++j) {
            weighted += (uint64_t)(int64_t)w[j] * bins[j];
            unweighted += (uint64_t)(int64_t)u[j] * bins[j];
        }
        if (c > 0) {
            out[c - 1] = weighted;
        }
        weighted = unweighted;
    }
    return MR_OK;
}
