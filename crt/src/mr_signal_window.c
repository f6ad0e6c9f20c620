/* signal.window kernel: the product of two int16 values fits int32; the shift is arithmetic (floor). */
#include "micro_relay/signal_window.h"

int mr_signal_window(const mr_signal_window_params *p, const int16_t *in, const int16_t *window, int16_t *out)
{
    int32_t start, i;
    for (start = 0; start < p->size; start += p->window_size) {
        for (i = 0; i < p->window_size; ++i) {
            int32_t v = ((int32_t)in[start + i] * (int32_t)window[i]) >> p->shift;
            if (v > INT16_MAX) {
                v = INT16_MAX;
            } else if (v < INT16_MIN) {
                v = INT16_MIN;
            }
            out[start + i] = (int16_t)v;
        }
    }
    return MR_OK;
}
