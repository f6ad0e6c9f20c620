/* signal.overlap_add kernels: the running buffer is first copied to state_out (unless it is state_in), then
 * updated there frame by frame: buffer += frame (int16 saturated, or one float add), `step` samples out, the
 * buffer shifted left by step and zero-filled, as TFLite Micro's OverlapAdd does. */
#include "micro_relay/signal_overlap_add.h"

#include <string.h>

#define MR_OVERLAP_ADD(NAME, T, ADD)                                                                           \
    int NAME(const mr_signal_overlap_add_params *p, const T *in, const T *state_in, T *out, T *state_out)      \
    {                                                                                                          \
        int32_t r, f, i;                                                                                       \
        const size_t frame = (size_t)p->frame, step = (size_t)p->step;                                         \
        if (state_out != state_in) {                                                                           \
            memcpy(state_out, state_in, (size_t)p->rows * frame * sizeof(T));                                  \
        }                                                                                                      \
        for (r = 0; r < p->rows; ++r) {                                                                        \
            T *buffer = state_out + (size_t)r * frame;                                                         \
            for (f = 0; f < p->frames; ++f) {                                                                  \
                const T *x = in + ((size_t)r * (size_t)p->frames + (size_t)f) * frame;                         \
                for (i = 0; i < p->frame; ++i) {                                                               \
                    buffer[i] = ADD(buffer[i], x[i]);                                                          \
                }                                                                                              \
                memcpy(out + ((size_t)r * (size_t)p->frames + (size_t)f) * step, buffer, step * sizeof(T));    \
                memmove(buffer, buffer + step, (frame - step) * sizeof(T));                                    \
                memset(buffer + (frame - step), 0, step * sizeof(T));                                          \
            }                                                                                                  \
        }                                                                                                      \
        return MR_OK;                                                                                          \
    }

static int16_t add_saturated(int16_t a, int16_t b)
{
    const int32_t sum = (int32_t)a + (int32_t)b;
    return (int16_t)(sum > INT16_MAX ? INT16_MAX : sum < INT16_MIN ? INT16_MIN : sum);
}

static float add_float(float a, float b)
{
    return a + b;
}

MR_OVERLAP_ADD(mr_signal_overlap_add_s16, int16_t, add_saturated)
MR_OVERLAP_ADD(mr_signal_overlap_add_f32, float, add_float)
