/*
 * nn.gru (ONNX GRU, forward, default activations), float32 (ops/gru.py). w: [3 * units][input] and
 * r: [3 * units][units] in ONNX's gate order z, r, h; wb, rb: their biases. h0 is the state the invoke starts
 * from; the kernel copies it to h and runs every batch row through every time step there, writing each step's
 * hidden state to out. scratch: 7 * units floats.
 */
#ifndef MICRO_RELAY_GRU_H
#define MICRO_RELAY_GRU_H

#include "crt.h"

typedef struct {
    int32_t batch, time, input_size, units, time_major;
    int32_t linear_before_reset;          /* the reset gate multiplies R_h h + Rb_h (PyTorch), else h */
} mr_gru_f32_params;

int mr_gru_f32(const mr_gru_f32_params *p, const float *in, const float *w, const float *r, const float *wb,
               const float *rb, const float *h0, float *out, float *h, float *scratch);

#endif
