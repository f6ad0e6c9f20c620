/*
 * floor_divide and floor_mod. float32 as TFLite's reference (R/floor_div.h, R/floor_mod.h): floor of the double
 * quotient, and fmodf moved to the divisor's sign. int32 in int64, so INT32_MIN / -1 is exact before the final
 * narrowing (which wraps to INT32_MIN, as numpy's int32 floor_divide gives); a zero divisor gives 0, as numpy.
 */
#include <math.h>

#include "micro_relay/floor_div.h"

static inline int32_t mr_floor_divide_i(const mr_binary_params *p, int32_t a, int32_t b)
{
    int64_t q;
    (void)p;
    if (b == 0) {
        return 0;
    }
    q = (int64_t)a / b;
    if ((int64_t)a % b != 0 && ((a < 0) != (b < 0))) {
        --q;
    }
    return (int32_t)(uint32_t)(uint64_t)q;
}

static inline int32_t mr_floor_mod_i(const mr_binary_params *p, int32_t a, int32_t b)
{
    int64_t r;
    (void)p;
    if (b == 0) {
        return 0;
    }
    r = (int64_t)a % b;
    return (int32_t)(r != 0 && ((b < 0) != (r < 0)) ? r + b : r);
}

static inline float mr_floor_divide_f(const mr_binary_params *p, float a, float b)
{
    (void)p;
    return (float)floor((double)a / (double)b);
}

static inline float mr_floor_mod_f(const mr_binary_params *p, float a, float b)
{
    const float r = fmodf(a, b);
    (void)p;
    return (r != 0.0f && ((b < 0.0f) != (r < 0.0f))) ? r + b : r;
}

MR_BINARY_FN(mr_floor_divide_s32, mr_binary_params, int32_t, int32_t, int32_t, mr_floor_divide_i)
MR_BINARY_FN(mr_floor_divide_f32, mr_binary_params, float, float, float, mr_floor_divide_f)
MR_BINARY_FN(mr_floor_mod_s32, mr_binary_params, int32_t, int32_t, int32_t, mr_floor_mod_i)
MR_BINARY_FN(mr_floor_mod_f32, mr_binary_params, float, float, float, mr_floor_mod_f)
