/* signal.window: TFLite Micro's SignalWindow, int16 samples times an int16 Q-format window. */
#ifndef MICRO_RELAY_SIGNAL_WINDOW_H
#define MICRO_RELAY_SIGNAL_WINDOW_H

#include "crt.h"

typedef struct {
    int32_t size;        /* input elements, a multiple of window_size */
    int32_t window_size; /* the window is applied to each run of this many samples */
    int32_t shift;       /* 0..31: out = sat16((x * w) >> shift) */
} mr_signal_window_params;

int mr_signal_window(const mr_signal_window_params *p, const int16_t *in, const int16_t *window, int16_t *out);

#endif
