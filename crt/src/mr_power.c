/* power: the C library's powf, as TFLite's std::pow on floats. */
#include <math.h>

#include "micro_relay/power.h"

static inline float mr_power_f(const mr_binary_params *p, float a, float b)
{
    (void)p;
    return powf(a, b);
}

MR_BINARY_FN(mr_power_f32, mr_binary_params, float, float, float, mr_power_f)
