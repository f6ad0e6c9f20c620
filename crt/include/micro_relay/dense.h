/* nn.dense (TFLite FULLY_CONNECTED): out[r][o] = act(sum_d in[r][d] * w[o][d] + bias[o]). */
#ifndef MICRO_RELAY_DENSE_H
#define MICRO_RELAY_DENSE_H

#include "crt.h"

typedef struct {
    int32_t rows, depth, units;
    int32_t in_zp, w_zp, out_zp;
    int32_t act_min, act_max;
    int32_t per_channel;         /* mult/shift hold `units` entries, else one */
    const int32_t *mult;
    const int32_t *shift;
    const int32_t *folded_bias;  /* bias - in_zp * sum(w) per unit, when w_zp == 0; else NULL */
    const int32_t *requant;      /* int8 on DSP cores: mr_requant_zp's {hi, mult, k} (simd.h) for a per-tensor
                                  * layer with a folded bias, constants it covers, int8's clamp, 4 units or more
                                  * and a depth that is a nonzero multiple of 4 (requantized in assembly);
                                  * else NULL */
    int32_t single_round;        /* int8: requantize with one rounding (mr_requant_single; the portable path) */
} mr_dense_q_params;

typedef struct {
    int32_t rows, depth, units;
    float act_min, act_max;
} mr_dense_f32_params;

/* int8: the portable C path, built and callable on every core; mr_dense_s8 is the DSP path on DSP builds
 * (MR_DSP_ASM, micro_relay/simd.h) and the portable one elsewhere. */
int mr_dense_s8_portable(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                         int8_t *out);
int mr_dense_s8(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out);
int mr_dense_s16(const mr_dense_q_params *p, const int16_t *in, const int8_t *w, const int32_t *bias, int16_t *out);
int mr_dense_s16_wide(const mr_dense_q_params *p, const int16_t *in, const int8_t *w, const int64_t *bias,
                      int16_t *out);
int mr_dense_f32(const mr_dense_f32_params *p, const float *in, const float *w, const float *bias, float *out);

#endif
