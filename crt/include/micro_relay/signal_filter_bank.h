/* signal.filter_bank: TFLite Micro's SignalFilterBank, weighted sums of a power spectrum per mel channel. */
#ifndef MICRO_RELAY_SIGNAL_FILTER_BANK_H
#define MICRO_RELAY_SIGNAL_FILTER_BANK_H

#include "crt.h"

/* channels = outputs + 1: channel 0 only carries the unweights of output 0. The compiler has checked that
 * every channel's bins and taps lie inside the spectrum and the weights. */
typedef struct {
    int32_t channels;
    const int16_t *weights;
    const int16_t *unweights;
    const int16_t *freq_starts;
    const int16_t *weight_starts;
    const int16_t *widths;
} mr_signal_filter_bank_params;

int mr_signal_filter_bank(const mr_signal_filter_bank_params *p, const uint32_t *spectrum, uint64_t *out);

#endif
