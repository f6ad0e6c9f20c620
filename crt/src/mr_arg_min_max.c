/* ARG_MAX / ARG_MIN as TFLite's reference ArgMinMax: per (outer, inner) the running best starts at index 0
 * and a later element replaces it only when it compares strictly greater (less), so ties keep the first
 * index. Floats compare plainly too (TFLite Micro's GreaterFn / LessFn): a NaN never replaces, and a NaN
 * first element is never replaced. */
#include "micro_relay/arg_min_max.h"

#define MR_GREATER(a, b) ((a) > (b))
#define MR_LESS(a, b) ((a) < (b))

#define MR_ARG_DEFINE(OP, KIND, T, IT, OKIND, BETTER)                                                         \
    int mr_##OP##_##KIND##_##OKIND(const mr_arg_min_max_params *p, const T *in, IT *out)                     \
    {                                                                                                        \
        int32_t o, j, i;                                                                                     \
        for (o = 0; o < p->outer; ++o) {                                                                     \
            const T *x = in + o * p->axis_size * p->inner;                                                   \
            for (j = 0; j < p->inner; ++j) {                                                                 \
                T best = x[j];                                                                               \
                int32_t index = 0;                                                                           \
                for (i = 1; i < p->axis_size; ++i) {                                                         \
                    const T v = x[i * p->inner + j];                                                         \
                    if (BETTER(v, best)) {                                                                   \
                        best = v;                                                                            \
                        index = i;                                                                           \
                    }                                                                                        \
                }                                                                                            \
                out[o * p->inner + j] = (IT)index;                                                           \
            }                                                                                                \
        }                                                                                                    \
        return MR_OK;                                                                                        \
    }

#define MR_ARG_BOTH(OP, KIND, T, BETTER)                                                                      \
    MR_ARG_DEFINE(OP, KIND, T, int32_t, s32, BETTER)                                                         \
    MR_ARG_DEFINE(OP, KIND, T, int64_t, s64, BETTER)

MR_ARG_BOTH(argmax, s8, int8_t, MR_GREATER)
MR_ARG_BOTH(argmax, s16, int16_t, MR_GREATER)
MR_ARG_BOTH(argmax, f32, float, MR_GREATER)
MR_ARG_BOTH(argmin, s8, int8_t, MR_LESS)
MR_ARG_BOTH(argmin, s16, int16_t, MR_LESS)
MR_ARG_BOTH(argmin, f32, float, MR_LESS)
