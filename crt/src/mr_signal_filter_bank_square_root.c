/* signal.filter_bank_square_root kernel: the digit-by-digit square root TFLite Micro uses (one result bit per
 * step from the top pair of bits down), then its round-to-nearest step, which stops at the largest result. */
#include "micro_relay/signal_filter_bank_square_root.h"

static int32_t bits64(uint64_t x)
{
    int32_t n = 0;
    while (x != 0u) {
        x >>= 1;
        ++n;
    }
    return n;
}

/* top = 32 or 64: the width the root is taken in, as TFLite Micro's Sqrt32 and Sqrt64 */
static uint64_t isqrt(uint64_t num, int32_t top)
{
    const uint64_t largest = top == 32 ? 0xFFFFu : 0xFFFFFFFFu;
    int32_t start, steps;
    uint64_t bit, res = 0u;
    if (num == 0u) {
        return 0u;
    }
    start = (top - bits64(num)) | 1; /* odd: the root's top bit pairs with an even bit of num */
    bit = (uint64_t)1 << (top - 1 - start);
    steps = (top - 1 - start) / 2 + 1;
    while (steps-- > 0) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != largest) {
        ++res;
    }
    return res;
}

/* TFLite Micro's Sqrt64: the bitwise root rounded to nearest, through its 32-bit path below 2^32. */
static uint32_t mr_signal_sqrt64(uint64_t x)
{
    return (uint32_t)isqrt(x, (x >> 32) == 0u ? 32 : 64);
}

int mr_signal_filter_bank_square_root(int32_t size, const uint64_t *in, const int32_t *scale_bits, uint32_t *out)
{
    const int32_t s = *scale_bits;
    int32_t i;
    for (i = 0; i < size; ++i) {
        out[i] = (s >= 0 && s <= 31) ? mr_signal_sqrt64(in[i]) >> s : 0u;
    }
    return MR_OK;
}
