/* signal.fft_auto_scale kernel. The running maximum is an int16 as in TFLite Micro's MaxAbs16: negating
 * -32768 wraps back to -32768, which every later sample then beats (the compiler's reference does the same). */
#include "micro_relay/signal_fft_auto_scale.h"
#include "micro_relay/signal_math.h"

/* int16 of the low 16 bits of v, without relying on an implementation-defined conversion */
static int16_t wrap16(uint32_t v)
{
    const int32_t low = (int32_t)(v & 0xFFFFu);
    return (int16_t)(low >= 0x8000 ? low - 0x10000 : low);
}

int mr_signal_fft_auto_scale(int32_t size, const int16_t *in, int16_t *out, int32_t *shift)
{
    int16_t best = 0;
    int32_t i, s;
    for (i = 0; i < size; ++i) {
        const int32_t v = in[i];
        if (v > best) {
            best = (int16_t)v;
        } else if (-v > best) {
            best = wrap16((uint32_t)(-v));
        }
    }
    s = 15 - mr_signal_msb32((uint32_t)(int32_t)best);
    if (s < 0) {
        s = 0;
    }
    for (i = 0; i < size; ++i) {
        out[i] = wrap16((uint32_t)(int32_t)in[i] << s);
    }
    *shift = s;
    return MR_OK;
}
