/* signal.delay kernel: per row, c = state followed by the input; out = c[0, frame), new state = c[frame, ...).
 * The new state is written front to back reading c at higher indices than it writes, so state_out may be
 * state_in. */
#include "micro_relay/signal_delay.h"

static int16_t joined(const int16_t *state, const int16_t *in, int32_t delay, int32_t k)
{
    return k < delay ? state[k] : in[k - delay];
}

int mr_signal_delay(const mr_signal_delay_params *p, const int16_t *in, const int16_t *state_in, int16_t *out,
                    int16_t *state_out)
{
    int32_t r, k;
    for (r = 0; r < p->rows; ++r) {
        const int16_t *x = in + (size_t)r * (size_t)p->frame;
        const int16_t *s = state_in + (size_t)r * (size_t)p->delay;
        int16_t *s_out = state_out + (size_t)r * (size_t)p->delay;
        for (k = 0; k < p->frame; ++k) {
            out[(size_t)r * (size_t)p->frame + (size_t)k] = joined(s, x, p->delay, k);
        }
        for (k = 0; k < p->delay; ++k) {
            s_out[k] = joined(s, x, p->delay, p->frame + k);
        }
    }
    return MR_OK;
}
