/* signal.stacker kernel: the held values are copied to held_out (unless the same), the frame appended (and on
 * the first invoke repeated `left` times); a full buffer is the output, then the oldest `drop` values go. */
#include "micro_relay/signal_stacker.h"

#include <string.h>

int mr_signal_stacker(const mr_signal_stacker_params *p, const int16_t *in, const int16_t *held_in,
                      const int32_t *flags_in, int16_t *out, uint8_t *valid, int16_t *held_out, int32_t *flags_out)
{
    const size_t channels = (size_t)p->channels;
    int32_t count = flags_in[0], first = flags_in[1] != 0, k;
    if (count < 0 || count > p->size - p->channels || (!first && count != 0)) {
        return MR_ERR_DOMAIN;
    }
    if (held_out != held_in) {
        memcpy(held_out, held_in, (size_t)p->size * sizeof(int16_t));
    }
    for (k = 0; k <= (first ? 0 : p->left); ++k) {
        memcpy(held_out + count, in, channels * sizeof(int16_t));
        count += p->channels;
    }
    first = 1;
    if (count >= p->size) {
        memcpy(out, held_out, (size_t)p->size * sizeof(int16_t));
        count -= p->drop;
        memmove(held_out, held_out + p->drop, (size_t)count * sizeof(int16_t));
        *valid = 1u;
    } else {
        memset(out, 0, (size_t)p->size * sizeof(int16_t));
        *valid = 0u;
    }
    flags_out[0] = count;
    flags_out[1] = first;
    return MR_OK;
}
