/* Integer helpers the signal kernels share (they are no kernel entry points: static inline, no status). */
#ifndef MICRO_RELAY_SIGNAL_MATH_H
#define MICRO_RELAY_SIGNAL_MATH_H

#include "crt.h"

/* The number of significant bits of x (1..32); 32 for 0, as TFLite Micro's MostSignificantBit32 on GCC. */
static inline int32_t mr_signal_msb32(uint32_t x)
{
    int32_t bits = 0;
    if (x == 0u) {
        return 32;
    }
    while (x != 0u) {
        x >>= 1;
        ++bits;
    }
    return bits;
}

#endif
