/* nn.depthwise_conv2d on CMSIS-NN: arm_depthwise_conv_wrapper_s8 with our mr_conv2d_q_params. */
#include "arm_nnfunctions.h"

#include "micro_relay_cmsis_nn.h"

int mr_cmsis_depthwise_conv2d_s8(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                                 int8_t *out, void *scratch)
{
    const mr_conv_geometry *g = &p->geo;
    const cmsis_nn_context ctx = {scratch, p->scratch_bytes};
    const cmsis_nn_dw_conv_params conv = {
        -p->in_zp, p->out_zp, g->filter_c, {g->stride_w, g->stride_h}, {g->pad_left, g->pad_top},
        {g->dil_w, g->dil_h}, {p->act_min, p->act_max}};
    const cmsis_nn_per_channel_quant_params quant = {MR_CMSIS_MUTABLE(p->mult), MR_CMSIS_MUTABLE(p->shift)};
    const cmsis_nn_dims input = {g->batches, g->in_h, g->in_w, g->in_c};
    const cmsis_nn_dims filter = {1, g->k_h, g->k_w, g->out_c};
    const cmsis_nn_dims bias_dims = {1, 1, 1, g->out_c};
    const cmsis_nn_dims output = {g->batches, g->out_h, g->out_w, g->out_c};

    return MR_CMSIS_STATUS(arm_depthwise_conv_wrapper_s8(&ctx, &conv, &quant, &input, in, &filter, w, &bias_dims,
                                                         bias, &output, out));
}
