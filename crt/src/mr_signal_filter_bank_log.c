/* signal.filter_bank_log kernel, TFLite Micro's Log32 arithmetic. The table holds log2 of the mantissa minus its
 * linear part in units of 2^-16 over 128 segments, round((log2(1 + i/128) - i/128) * 2^16) for i = 0..128, and a
 * closing 0 (tests/ops/test_signal_vs_tflm.py recomputes it). */
#include "micro_relay/signal_filter_bank_log.h"
#include "micro_relay/signal_math.h"

static const uint16_t mr_log_lut[130] = {
    0, 224, 442, 654, 861, 1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944, 3087, 3224,
    3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791, 4864, 4934, 5001,
    5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578, 5595, 5610, 5622, 5631,
    5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332,
    5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341, 4264,
    4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659, 2549,
    2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224, 1094, 963, 830, 695, 559, 421, 282, 142,
    0, 0
};

/* scale * ln(x) / 2^16 rounded, for x > 1 */
static uint32_t mr_signal_log32(uint32_t x, uint32_t scale)
{
    const int32_t integer = mr_signal_msb32(x) - 1;
    int32_t frac = (int32_t)(x - ((uint32_t)1 << integer));
    int32_t seg, c0, c1;
    uint32_t log2, loge;
    if (integer < 16) {
        frac = (int32_t)((uint32_t)frac << (16 - integer));
    } else {
        frac >>= integer - 16;
    }
    seg = frac >> 9;
    c0 = mr_log_lut[seg];
    c1 = mr_log_lut[seg + 1];
    log2 = ((uint32_t)integer << 16) + (uint32_t)(frac + c0 + (((c1 - c0) * (frac - (seg << 9))) >> 16));
    loge = (uint32_t)(((uint64_t)45426u * log2 + 32768u) >> 16);
    return (scale * loge + 32768u) >> 16;
}

int mr_signal_filter_bank_log(const mr_signal_filter_bank_log_params *p, const uint32_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const uint32_t v = in[i] << p->correction_bits;
        if (v > 1u) {
            const uint32_t log_value = mr_signal_log32(v, (uint32_t)p->scale);
            out[i] = (int16_t)(log_value < 32767u ? log_value : 32767u);
        } else {
            out[i] = 0;
        }
    }
    return MR_OK;
}
