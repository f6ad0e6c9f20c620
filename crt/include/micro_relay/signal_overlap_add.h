/* signal.overlap_add: TFLite Micro's SignalOverlapAdd, frames added into a running buffer, `step` samples out
 * per frame. */
#ifndef MICRO_RELAY_SIGNAL_OVERLAP_ADD_H
#define MICRO_RELAY_SIGNAL_OVERLAP_ADD_H

#include "crt.h"

typedef struct {
    int32_t rows;   /* outer rows, each with its own buffer */
    int32_t frames; /* frames per row and invoke */
    int32_t frame;  /* samples per frame, the buffer's length */
    int32_t step;   /* samples out per frame, 1..frame */
} mr_signal_overlap_add_params;

/* state_in: [rows][frame], the running buffers; state_out: the new ones (may be state_in itself) */
int mr_signal_overlap_add_s16(const mr_signal_overlap_add_params *p, const int16_t *in, const int16_t *state_in,
                              int16_t *out, int16_t *state_out);
int mr_signal_overlap_add_f32(const mr_signal_overlap_add_params *p, const float *in, const float *state_in,
                              float *out, float *state_out);

#endif
