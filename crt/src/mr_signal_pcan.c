/* signal.pcan kernel. The quadratic's intermediate stays below 2^31 for any table (|lut[2] * frac| >> 5 plus
 * |lut[1]| * 32 is at most 2^21, times frac < 2^10); its int16 result converts to uint32 as in TFLite Micro. */
#include "micro_relay/signal_pcan.h"
#include "micro_relay/signal_math.h"

static int32_t wide_dynamic(uint32_t x, const int16_t *lut)
{
    int32_t interval, frac, result, low;
    if (x <= 2u) {
        return lut[x];
    }
    interval = mr_signal_msb32(x);
    lut += 4 * interval - 6;
    frac = (int32_t)(((interval < 11) ? (x << (11 - interval)) : (x >> (interval - 11))) & 0x3FFu);
    result = ((int32_t)lut[2] * frac) >> 5;
    result += (int32_t)lut[1] * 32;
    result *= frac;
    result = ((result + (1 << 14)) >> 15) + lut[0];
    low = (int32_t)((uint32_t)result & 0xFFFFu);
    return low >= 0x8000 ? low - 0x10000 : low;
}

int mr_signal_pcan(int32_t size, int32_t snr_shift, const uint32_t *in, const uint32_t *noise, const int16_t *lut,
                   uint32_t *out)
{
    int32_t i;
    for (i = 0; i < size; ++i) {
        const uint32_t gain = (uint32_t)wide_dynamic(noise[i], lut);
        const uint32_t snr = (uint32_t)(((uint64_t)in[i] * gain) >> snr_shift);
        out[i] = snr < 8192u ? (snr * snr) >> 20 : (snr >> 6) - 64u;
    }
    return MR_OK;
}
