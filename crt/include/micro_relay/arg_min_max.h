/* argmax / argmin (TFLite ARG_MAX / ARG_MIN): the index of the largest (smallest) element along one axis. */
#ifndef MICRO_RELAY_ARG_MIN_MAX_H
#define MICRO_RELAY_ARG_MIN_MAX_H

#include "crt.h"

/* The input as [outer, axis_size, inner]; the output as [outer, inner]. */
typedef struct {
    int32_t outer, axis_size, inner;
} mr_arg_min_max_params;

#define MR_ARG_DECLARE(OP, KIND, T)                                                                           \
    int mr_##OP##_##KIND##_s32(const mr_arg_min_max_params *p, const T *in, int32_t *out);                  \
    int mr_##OP##_##KIND##_s64(const mr_arg_min_max_params *p, const T *in, int64_t *out);

MR_ARG_DECLARE(argmax, s8, int8_t)
MR_ARG_DECLARE(argmax, s16, int16_t)
MR_ARG_DECLARE(argmax, f32, float)
MR_ARG_DECLARE(argmin, s8, int8_t)
MR_ARG_DECLARE(argmin, s16, int16_t)
MR_ARG_DECLARE(argmin, f32, float)

#undef MR_ARG_DECLARE

#endif
