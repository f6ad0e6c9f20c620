/*
 * nn.lstm (TFLite UNIDIRECTIONAL_SEQUENCE_LSTM), bit-exact with TFLite Micro's LSTM kernel for int8 and int16
 * activations (int16 gates and cell state) and the same float sequence for float32 (ops/lstm.py).
 *
 * The weights are passed gate by gate in TFLite's order i, f, c, o: w[0..3] the input weights [units][input],
 * w[4..7] the recurrent ones [units][units], bias[0..3]. h0/c0 are the states the invoke starts from; the kernel
 * copies them to h/c, runs every batch row through every time step there, and writes each step's hidden state
 * to out ([batch][time][units], or [time][batch][units] when time_major). scratch: 4 * units cell values.
 */
#ifndef MICRO_RELAY_LSTM_H
#define MICRO_RELAY_LSTM_H

#include "crt.h"

typedef struct {
    int32_t batch, time, input_size, units, time_major;
    int32_t in_zp, h_zp;                  /* zero points of the input and of the hidden state */
    int32_t in_mult[4], in_shift[4];      /* input FC of each gate to the Q3.12 gate input */
    int32_t rec_mult[4], rec_shift[4];    /* recurrent FC of each gate */
    int32_t forget_mult, forget_shift;    /* forget gate x cell -> cell */
    int32_t update_mult, update_shift;    /* input gate x cell gate -> cell */
    int32_t hidden_mult, hidden_shift;    /* tanh(cell) x output gate -> hidden */
    int32_t h_min, h_max;                 /* the hidden type's range */
    int32_t has_clip, cell_clip;          /* cell state clipped to [-cell_clip, cell_clip] when has_clip */
    int32_t tanh_mult, tanh_shift;        /* the cell state's tanh input rescale */
    const int16_t *sigmoid_table;         /* 256 nodes of sigmoid(i/24) in 0.16, stored minus 32768 */
    const int32_t *folded_bias;           /* int8: [8][units], bias - zp * sum(w) of the input FCs (rows 0..3)
                                           * and -h_zp * sum(w) of the recurrent ones; NULL: offsets applied */
} mr_lstm_q_params;

typedef struct {
    int32_t batch, time, input_size, units, time_major;
    float cell_clip;                      /* 0: no clip */
} mr_lstm_f32_params;

int mr_lstm_s8(const mr_lstm_q_params *p, const int8_t *in, const int8_t *const w[8], const int32_t *const bias[4],
               const int8_t *h0, const int16_t *c0, int8_t *out, int8_t *h, int16_t *c, int16_t *scratch);
int mr_lstm_s16(const mr_lstm_q_params *p, const int16_t *in, const int8_t *const w[8],
                const int64_t *const bias[4], const int16_t *h0, const int16_t *c0, int16_t *out, int16_t *h,
                int16_t *c, int16_t *scratch);
int mr_lstm_f32(const mr_lstm_f32_params *p, const float *in, const float *const w[8], const float *const bias[4],
                const float *h0, const float *c0, float *out, float *h, float *c, float *scratch);

#endif
