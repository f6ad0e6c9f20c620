/* maximum and minimum, as TFLite Micro's MaximumOp / MinimumOp: el1 > el2 ? el1 : el2 (NaN in b wins). */
#include "micro_relay/minmax.h"

#define MR_MAX_OF(p, x, y) ((void)(p), (x) > (y) ? (x) : (y))
#define MR_MIN_OF(p, x, y) ((void)(p), (x) < (y) ? (x) : (y))

MR_BINARY_FN(mr_maximum_s8, mr_binary_params, int8_t, int8_t, int8_t, MR_MAX_OF)
MR_BINARY_FN(mr_maximum_s16, mr_binary_params, int16_t, int16_t, int16_t, MR_MAX_OF)
MR_BINARY_FN(mr_maximum_s32, mr_binary_params, int32_t, int32_t, int32_t, MR_MAX_OF)
MR_BINARY_FN(mr_maximum_f32, mr_binary_params, float, float, float, MR_MAX_OF)
MR_BINARY_FN(mr_minimum_s8, mr_binary_params, int8_t, int8_t, int8_t, MR_MIN_OF)
MR_BINARY_FN(mr_minimum_s16, mr_binary_params, int16_t, int16_t, int16_t, MR_MIN_OF)
MR_BINARY_FN(mr_minimum_s32, mr_binary_params, int32_t, int32_t, int32_t, MR_MIN_OF)
MR_BINARY_FN(mr_minimum_f32, mr_binary_params, float, float, float, MR_MIN_OF)
