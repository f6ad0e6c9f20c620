/* signal.spectral_subtraction: TFLite Micro's SignalFilterBankSpectralSubtraction, a per-channel noise floor
 * tracked across invokes and subtracted. */
#ifndef MICRO_RELAY_SIGNAL_SPECTRAL_SUBTRACTION_H
#define MICRO_RELAY_SIGNAL_SPECTRAL_SUBTRACTION_H

#include "crt.h"

typedef struct {
    int32_t size;
    uint32_t smoothing;           /* even channels; scale 2^bits */
    uint32_t one_minus_smoothing;
    uint32_t alternate_smoothing; /* odd channels */
    uint32_t alternate_one_minus_smoothing;
    uint32_t min_signal_remaining;
    int32_t smoothing_bits; /* 0..31 */
    int32_t bits;           /* spectral_subtraction_bits, 0..63 */
    int32_t clamping;
} mr_signal_spectral_subtraction_params;

/* noise_in: the state (the previous estimate); noise_out: the new estimate (may be noise_in itself) */
int mr_signal_spectral_subtraction(const mr_signal_spectral_subtraction_params *p, const uint32_t *in,
                                   const uint32_t *noise_in, uint32_t *out, uint32_t *noise_out);

#endif
