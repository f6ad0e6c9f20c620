/*
 * batch_matmul (TFLite BATCH_MATMUL): out[b, i, j] = sum_k lhs[b, i, k] * rhs[b, k, j] over broadcast batch
 * dims. The compiler collapses the batch dims (as elementwise.h does for shapes) into at most
 * MR_BATCH_MATMUL_MAX_BATCH with each operand's element stride per batch index, 0 where it repeats, and says
 * where element (i, k) and (k, j) are through steps, so an operand stored transposed (adj_x, adj_y) is read in
 * place. The output is row-major [batch..., rows, cols].
 */
#ifndef MICRO_RELAY_BATCH_MATMUL_H
#define MICRO_RELAY_BATCH_MATMUL_H

#include "crt.h"

#define MR_BATCH_MATMUL_MAX_BATCH 4

typedef struct {
    int32_t batch_rank; /* >= 1 */
    int32_t batch_dims[MR_BATCH_MATMUL_MAX_BATCH];
    int32_t lhs_batch_strides[MR_BATCH_MATMUL_MAX_BATCH];
    int32_t rhs_batch_strides[MR_BATCH_MATMUL_MAX_BATCH];
    int32_t rows, depth, cols;
    int32_t lhs_row_step, lhs_k_step; /* lhs[i, k] = lhs[i * row_step + k * k_step] */
    int32_t rhs_k_step, rhs_col_step; /* rhs[k, j] = rhs[k * k_step + j * col_step] */
} mr_batch_matmul_shape;

typedef struct {
    mr_batch_matmul_shape s;
} mr_batch_matmul_f32_params;

typedef struct {
    mr_batch_matmul_shape s;
    int32_t lhs_offset, rhs_offset; /* minus the zero points */
    int32_t out_offset;             /* output zero point (0 for int16) */
    int32_t mult, shift;            /* float(lhs_s * rhs_s) / out_s (lhs_s * rhs_s / out_s for single rounding) */
    int32_t single_round;           /* int8: nonzero for one rounding (mr_requant_single) */
} mr_batch_matmul_q_params;

int mr_batch_matmul_s8(const mr_batch_matmul_q_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out);
int mr_batch_matmul_s16(const mr_batch_matmul_q_params *p, const int16_t *lhs, const int16_t *rhs, int16_t *out);
int mr_batch_matmul_f32(const mr_batch_matmul_f32_params *p, const float *lhs, const float *rhs, float *out);

#endif
