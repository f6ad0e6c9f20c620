/* signal.filter_bank_log: TFLite Micro's SignalFilterBankLog, the integer log of each filter-bank channel. */
#ifndef MICRO_RELAY_SIGNAL_FILTER_BANK_LOG_H
#define MICRO_RELAY_SIGNAL_FILTER_BANK_LOG_H

#include "crt.h"

typedef struct {
    int32_t size;
    int32_t correction_bits; /* 0..31: the input is shifted left by this, in uint32 */
    int32_t scale;           /* output units per natural-log unit, taken as uint32 */
} mr_signal_filter_bank_log_params;

int mr_signal_filter_bank_log(const mr_signal_filter_bank_log_params *p, const uint32_t *in, int16_t *out);

#endif
