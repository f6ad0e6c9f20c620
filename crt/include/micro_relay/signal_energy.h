/* signal.energy: TFLite Micro's SignalEnergy, |X[k]|^2 of interleaved int16 (real, imag) bins. */
#ifndef MICRO_RELAY_SIGNAL_ENERGY_H
#define MICRO_RELAY_SIGNAL_ENERGY_H

#include "crt.h"

typedef struct {
    int32_t start; /* first bin computed */
    int32_t end;   /* one past the last; the other outputs are 0 */
    int32_t size;  /* output elements */
} mr_signal_energy_params;

int mr_signal_energy(const mr_signal_energy_params *p, const int16_t *in, uint32_t *out);

#endif
