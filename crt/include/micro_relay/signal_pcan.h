/* signal.pcan: TFLite Micro's SignalPCAN, per-channel energy normalization by a gain of the noise estimate. */
#ifndef MICRO_RELAY_SIGNAL_PCAN_H
#define MICRO_RELAY_SIGNAL_PCAN_H

#include "crt.h"

/* lut: the 125-entry gain table (the compiler checked its length); snr_shift: 0..63 */
int mr_signal_pcan(int32_t size, int32_t snr_shift, const uint32_t *in, const uint32_t *noise, const int16_t *lut,
                   uint32_t *out);

#endif
