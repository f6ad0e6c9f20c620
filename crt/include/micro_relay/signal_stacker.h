/* signal.stacker: TFLite Micro's SignalStacker, the last left + 1 + right frames stacked into one output. */
#ifndef MICRO_RELAY_SIGNAL_STACKER_H
#define MICRO_RELAY_SIGNAL_STACKER_H

#include "crt.h"

typedef struct {
    int32_t channels; /* values per input frame */
    int32_t left;     /* times the first frame is repeated (its left context) */
    int32_t size;     /* values out: channels * (left + right + 1) */
    int32_t drop;     /* values dropped after a valid output: channels * step */
} mr_signal_stacker_params;

/* held_in: [size] values, oldest first; flags_in: {how many are held, whether the first frame has come}.
 * held_out and flags_out are the new state (may be held_in and flags_in). A held count outside
 * [0, size - channels] (a state not reset) returns MR_ERR_DOMAIN. */
int mr_signal_stacker(const mr_signal_stacker_params *p, const int16_t *in, const int16_t *held_in,
                      const int32_t *flags_in, int16_t *out, uint8_t *valid, int16_t *held_out, int32_t *flags_out);

#endif
