/* nn.dense on CMSIS-NN: arm_fully_connected_s8 (one multiplier) or arm_fully_connected_per_channel_s8, rows as
 * batches. CMSIS-NN needs no buffer outside MVE; the bias may be NULL. */
#include "arm_nnfunctions.h"

#include "micro_relay_cmsis_nn.h"

int mr_cmsis_dense_s8(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                      int8_t *out)
{
    const cmsis_nn_context ctx = {NULL, 0};
    const cmsis_nn_fc_params fc = {-p->in_zp, -p->w_zp, p->out_zp, {p->act_min, p->act_max}};
    const cmsis_nn_dims input = {p->rows, 1, 1, p->depth};
    const cmsis_nn_dims filter = {p->depth, 1, 1, p->units};
    const cmsis_nn_dims bias_dims = {1, 1, 1, p->units};
    const cmsis_nn_dims output = {p->rows, 1, 1, p->units};

    if (p->per_channel) {
        const cmsis_nn_per_channel_quant_params quant = {MR_CMSIS_MUTABLE(p->mult), MR_CMSIS_MUTABLE(p->shift)};
        return MR_CMSIS_STATUS(arm_fully_connected_per_channel_s8(&ctx, &fc, &quant, &input, in, &filter, w,
                                                                  &bias_dims, bias, &output, out));
    }
    const cmsis_nn_per_tensor_quant_params quant = {p->mult[0], p->shift[0]};
    return MR_CMSIS_STATUS(
        arm_fully_connected_s8(&ctx, &fc, &quant, &input, in, &filter, w, &bias_dims, bias, &output, out));
}
