/* int16 LOGISTIC and TANH, bit-exact with TFLite Micro's (RI/logistic.h, RI/tanh.h; logistic16.h). */
#include "micro_relay/logistic16.h"
#include "micro_relay/sigmoid_table.h"

/* 9 fraction bits between table entries, negative inputs mirrored: 1 - sigmoid(|x|). */
int mr_sigmoid_s16(const mr_logistic16_params *p, const int16_t *in, int16_t *out)
{
    const int32_t rounding = p->shift > 0 ? (int32_t)1 << (p->shift - 1) : 0;
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t x = ((int32_t)in[i] * p->mult + rounding) >> p->shift;
        const uint32_t ax = (uint32_t)(x < 0 ? -x : x);
        const uint32_t h = ax >> 9;
        uint32_t r;
        if (h >= 255u) {
            r = 0x7FFFu << 10;
        } else {
            const uint32_t ua = mr_sigmoid_table[h];
            const uint32_t ub = mr_sigmoid_table[h + 1u];
            r = (ua << 9) + (ax & 0x1FFu) * (ub - ua);
        }
        r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
        out[i] = (int16_t)(r >> 10);
    }
    return MR_OK;
}

/* The table at 8 fraction bits: 2 sigmoid(2|x|) - 1, mirrored for x < 0 (arithmetic shift). */
int mr_tanh_s16(const mr_logistic16_params *p, const int16_t *in, int16_t *out)
{
    const int32_t rounding = p->shift > 0 ? (int32_t)1 << (p->shift - 1) : 0;
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t x = ((int32_t)in[i] * p->mult + rounding) >> p->shift;
        const uint32_t ax = (uint32_t)(x < 0 ? -x : x);
        const uint32_t h = ax >> 8;
        int32_t r;
        if (h >= 255u) {
            r = 0xFFFF << 8;
        } else {
            const uint32_t ua = mr_sigmoid_table[h];
            const uint32_t ub = mr_sigmoid_table[h + 1u];
            r = (int32_t)((ua << 8) + (ax & 0xFFu) * (ub - ua));
        }
        r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
        out[i] = (int16_t)(r >> 8);
    }
    return MR_OK;
}
