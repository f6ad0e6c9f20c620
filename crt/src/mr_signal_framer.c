/* signal.framer kernel: each row's held samples are copied to held_out (unless the same) and the frames are cut
 * there: a step of input appended; with `size` samples held, the oldest `size` are the frame and the oldest
 * `step` are dropped; else the frame is zeros and not valid. */
#include "micro_relay/signal_framer.h"

#include <string.h>

int mr_signal_framer(const mr_signal_framer_params *p, const int16_t *in, const int16_t *held_in,
                     const int32_t *count_in, int16_t *out, uint8_t *valid, int16_t *held_out, int32_t *count_out)
{
    const size_t size = (size_t)p->size, step = (size_t)p->step, capacity = (size_t)p->capacity;
    const int32_t start = count_in[0];
    int32_t r, f, count = start;
    uint8_t all_valid = 1u;
    if (start < 0 || start > p->capacity - p->step) {
        return MR_ERR_DOMAIN;
    }
    if (held_out != held_in) {
        memcpy(held_out, held_in, (size_t)p->rows * capacity * sizeof(int16_t));
    }
    for (r = 0; r < p->rows; ++r) {
        int16_t *held = held_out + (size_t)r * capacity;
        count = start;
        for (f = 0; f < p->frames; ++f) {
            const size_t index = (size_t)r * (size_t)p->frames + (size_t)f;
            int16_t *frame = out + index * size;
            memcpy(held + count, in + index * step, step * sizeof(int16_t));
            count += p->step;
            if (count >= p->size) {
                memcpy(frame, held, size * sizeof(int16_t));
                count -= p->step;
                memmove(held, held + step, (size_t)count * sizeof(int16_t));
            } else {
                memset(frame, 0, size * sizeof(int16_t));
                all_valid = 0u;
            }
        }
    }
    *valid = all_valid;
    count_out[0] = count;
    return MR_OK;
}
