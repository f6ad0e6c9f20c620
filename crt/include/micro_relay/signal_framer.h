/* signal.framer: TFLite Micro's SignalFramer, overlapping frames cut from each row of a sample stream. */
#ifndef MICRO_RELAY_SIGNAL_FRAMER_H
#define MICRO_RELAY_SIGNAL_FRAMER_H

#include "crt.h"

typedef struct {
    int32_t rows;     /* outer rows, each framed on its own */
    int32_t frames;   /* frames per row and invoke: the row's samples / step */
    int32_t size;     /* samples per frame */
    int32_t step;     /* samples between frames */
    int32_t capacity; /* samples the state holds per row */
} mr_signal_framer_params;

/* held_in: [rows][capacity] samples, oldest first; count_in: how many each row holds. held_out and count_out
 * are the new state (may be held_in and count_in). valid: whether every frame of this invoke was complete. A
 * count outside [0, capacity - step] (a state not reset) returns MR_ERR_DOMAIN. */
int mr_signal_framer(const mr_signal_framer_params *p, const int16_t *in, const int16_t *held_in,
                     const int32_t *count_in, int16_t *out, uint8_t *valid, int16_t *held_out, int32_t *count_out);

#endif
