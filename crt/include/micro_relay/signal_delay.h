/* signal.delay: TFLite Micro's SignalDelay, each row of int16 samples delayed by `delay` samples across invokes. */
#ifndef MICRO_RELAY_SIGNAL_DELAY_H
#define MICRO_RELAY_SIGNAL_DELAY_H

#include "crt.h"

typedef struct {
    int32_t rows;  /* outer rows, each delayed on its own */
    int32_t frame; /* samples per row and invoke */
    int32_t delay; /* samples of delay, >= 1 */
} mr_signal_delay_params;

/* state_in: [rows][delay], the row's last `delay` samples; state_out: the new ones (may be state_in itself) */
int mr_signal_delay(const mr_signal_delay_params *p, const int16_t *in, const int16_t *state_in, int16_t *out,
                    int16_t *state_out);

#endif
