/* signal.fft_auto_scale: TFLite Micro's SignalFftAutoScale, an int16 frame shifted up to full scale. */
#ifndef MICRO_RELAY_SIGNAL_FFT_AUTO_SCALE_H
#define MICRO_RELAY_SIGNAL_FFT_AUTO_SCALE_H

#include "crt.h"

/* out[i] = x[i] * 2^shift with shift = max(0, 15 - msb32(max |x|)) written to *shift. */
int mr_signal_fft_auto_scale(int32_t size, const int16_t *in, int16_t *out, int32_t *shift);

#endif
