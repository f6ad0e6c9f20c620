/*
 * Broadcasting for the binary element-wise kernels (add, subtract, multiply).
 *
 * The compiler collapses the two input shapes against the output shape (scripts/micro_relay/ops/
 * _elementwise.py broadcast_layout): neighbouring axes that broadcast alike are merged and size-1 axes
 * dropped, leaving at most MR_BROADCAST_MAX_RANK dims with per-input element strides, 0 where an input is
 * repeated. Rank 0 means no broadcasting: both inputs are read flat. Kernels walk the output row by row
 * (the last collapsed dim is the row) and step the two input offsets with an odometer over the outer dims.
 */
#ifndef MICRO_RELAY_ELEMENTWISE_H
#define MICRO_RELAY_ELEMENTWISE_H

#include "crt.h"
#include "fixedpoint.h"

#define MR_BROADCAST_MAX_RANK 6

typedef struct {
    int32_t rank; /* 0: equal element order, no broadcast */
    int32_t dims[MR_BROADCAST_MAX_RANK];
    int32_t a_strides[MR_BROADCAST_MAX_RANK];
    int32_t b_strides[MR_BROADCAST_MAX_RANK];
} mr_broadcast;

/* Where the walk is: the index along every outer dim and the first element of the row in a and b. */
typedef struct {
    int32_t index[MR_BROADCAST_MAX_RANK];
    int32_t a, b;
} mr_broadcast_pos;

static inline void mr_broadcast_start(mr_broadcast_pos *pos)
{
    int i;
    for (i = 0; i < MR_BROADCAST_MAX_RANK; ++i) {
        pos->index[i] = 0;
    }
    pos->a = 0;
    pos->b = 0;
}

/* Advance to the next row: increment the outer dims like an odometer. */
static inline void mr_broadcast_next_row(const mr_broadcast *bc, mr_broadcast_pos *pos)
{
    int32_t d;
    for (d = bc->rank - 2; d >= 0; --d) {
        pos->a += bc->a_strides[d];
        pos->b += bc->b_strides[d];
        if (++pos->index[d] < bc->dims[d]) {
            return;
        }
        pos->a -= bc->a_strides[d] * bc->dims[d];
        pos->b -= bc->b_strides[d] * bc->dims[d];
        pos->index[d] = 0;
    }
}

/*
 * Runs STMT with `ia`, `ib`, `io` set to the element offsets of a, b and the output, over `size` output
 * elements: flat when bc->rank is 0, row by row otherwise. STMT must only read a[ia], b[ib] and write out[io].
 */
#define MR_BROADCAST_LOOP(bc, size, STMT)                                                   \
    do {                                                                                    \
        int32_t ia, ib, io;                                                                 \
        if ((bc)->rank == 0) {                                                              \
            for (io = 0; io < (size); ++io) {                                               \
                ia = io;                                                                    \
                ib = io;                                                                    \
                STMT;                                                                       \
            }                                                                               \
        } else {                                                                            \
            const int32_t mr_inner = (bc)->dims[(bc)->rank - 1];                            \
            const int32_t mr_sa = (bc)->a_strides[(bc)->rank - 1];                          \
            const int32_t mr_sb = (bc)->b_strides[(bc)->rank - 1];                          \
            mr_broadcast_pos mr_pos;                                                        \
            int32_t mr_i;                                                                   \
            mr_broadcast_start(&mr_pos);                                                    \
            for (io = 0; io < (size);) {                                                    \
                for (mr_i = 0, ia = mr_pos.a, ib = mr_pos.b; mr_i < mr_inner; ++mr_i, ++io) { \
                    STMT;                                                                   \
                    ia += mr_sa;                                                            \
                    ib += mr_sb;                                                            \
                }                                                                           \
                mr_broadcast_next_row((bc), &mr_pos);                                       \
            }                                                                               \
        }                                                                                   \
    } while (0)

/* Parameters of ADD and SUB, which share TFLite Micro's rescale-then-combine arithmetic. */
typedef struct {
    mr_broadcast bc;
    int32_t size;                      /* output elements */
    int32_t a_offset, b_offset;        /* minus the input zero points */
    int32_t out_offset;                /* output zero point */
    int32_t left_shift;                /* 20 for int8, 15 for int16 */
    int32_t a_mult, a_shift, b_mult, b_shift;
    int32_t out_mult, out_shift;
    int32_t act_min, act_max;
    int32_t single_shift;              /* nonzero: one rounding (mr_addsub_single); a_mult, b_mult share it */
} mr_addsub_q_params;

/*
 * ADD (sign 1) and SUB (sign -1) of a node with rounding "single" (ONNX QDQ): the exact sum
 * (a - za) M1 +- (b - zb) M2 on one exponent T = single_shift, rounded once, (sum + 2^(T-1)) >> T, saturated like
 * mr_requant_single, plus the output zero point. Products below 2^39 (|q - z| <= 255, M < 2^31), T in [1, 62].
 */
static inline int32_t mr_addsub_single(const mr_addsub_q_params *p, int32_t a, int32_t b, int32_t sign)
{
    const int64_t sum = (int64_t)(a + p->a_offset) * p->a_mult + (int64_t)sign * (b + p->b_offset) * p->b_mult;
    return mr_shift_single(sum + ((int64_t)1 << (p->single_shift - 1)), p->single_shift) + p->out_offset;
}

typedef struct {
    mr_broadcast bc;
    int32_t size;
    float act_min, act_max;
} mr_addsub_f32_params;

#endif /* MICRO_RELAY_ELEMENTWISE_H */
