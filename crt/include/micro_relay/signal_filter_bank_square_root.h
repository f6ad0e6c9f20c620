/* signal.filter_bank_square_root: TFLite Micro's SignalFilterBankSquareRoot, rounded integer roots scaled down. */
#ifndef MICRO_RELAY_SIGNAL_FILTER_BANK_SQUARE_ROOT_H
#define MICRO_RELAY_SIGNAL_FILTER_BANK_SQUARE_ROOT_H

#include "crt.h"

/* out[i] = sqrt64(in[i]) >> *scale_bits; 0 when *scale_bits is outside [0, 31]. */
int mr_signal_filter_bank_square_root(int32_t size, const uint64_t *in, const int32_t *scale_bits, uint32_t *out);

#endif
