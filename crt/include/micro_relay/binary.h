/*
 * The parameters every broadcasting binary math kernel takes (maximum, minimum, the comparisons, the logical
 * ops, floor_divide, floor_mod, power, and the float paths of squared_difference and prelu): the collapsed
 * broadcast (elementwise.h) and the output's element count. Bool tensors are uint8_t holding 0 or 1.
 */
#ifndef MICRO_RELAY_BINARY_H
#define MICRO_RELAY_BINARY_H

#include "crt.h"
#include "elementwise.h"

typedef struct {
    mr_broadcast bc;
    int32_t size; /* output elements */
} mr_binary_params;

/* Defines `int NAME(const PARAMS *p, const TA *a, const TB *b, TO *out)` computing out[io] = EXPR of a[ia] and b[ib]. */
#define MR_BINARY_FN(NAME, PARAMS, TA, TB, TO, EXPR)                                      \
    int NAME(const PARAMS *p, const TA *a, const TB *b, TO *out)                         \
    {                                                                                    \
        MR_BROADCAST_LOOP(&p->bc, p->size, out[io] = (TO)(EXPR(p, a[ia], b[ib])));       \
        return MR_OK;                                                                    \
    }

#endif /* MICRO_RELAY_BINARY_H */
