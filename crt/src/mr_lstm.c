/*
 * LSTM kernels (micro_relay/lstm.h): TFLite Micro's step, gate by gate, one batch row at a time (rows are
 * independent, so this equals TFLite Micro's time-major batching). Scratch buffers as TFLite Micro uses them:
 * b0 forget gate, b1 input gate, b2 cell gate, b3 the recurrent FC; after the cell update b1 holds the output
 * gate and b0 tanh(cell).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "micro_relay/lstm.h"
#include "micro_relay/fixedpoint.h"

enum { GATE_INPUT = 0, GATE_FORGET = 1, GATE_CELL = 2, GATE_OUTPUT = 3 };

static int16_t sat16(int64_t v)
{
    return (int16_t)(v > INT16_MAX ? INT16_MAX : (v < INT16_MIN ? INT16_MIN : v));
}

/* The table node u in 0.16 (stored minus 32768). */
static uint32_t node(const int16_t *table, uint32_t u)
{
    return (uint32_t)((int32_t)table[u] + 32768);
}

/* int16 Logistic, Q3.12 -> Q0.15 (ops/_lstm.py). */
static int16_t sigmoid_s16(int16_t x, const int16_t *table)
{
    const int32_t v = (int32_t)x * 3;
    const uint32_t a = (uint32_t)(v < 0 ? -v : v);
    const uint32_t u = a >> 9;
    uint32_t r;
    if (u >= 255u) {
        r = 0x7FFFu << 10;
    } else {
        const uint32_t lo = node(table, u);
        r = (lo << 9) + (a & 0x1FFu) * (node(table, u + 1u) - lo);
    }
    r = v >= 0 ? r + 512u : (1u << 25) - r + 511u;
    return (int16_t)(r >> 10);
}

/* int16 Tanh with input rescale (mult, shift) -> Q0.15 (ops/_lstm.py). */
static int16_t tanh_s16(int16_t x, int32_t mult, int32_t shift, const int16_t *table)
{
    const int32_t rounding = shift > 0 ? (int32_t)1 << (shift - 1) : 0;
    const int32_t v = ((int32_t)x * mult + rounding) >> shift;
    const uint32_t a = (uint32_t)(v < 0 ? -v : v);
    const uint32_t u = a >> 8;
    int32_t r;
    if (u >= 255u) {
        r = (int32_t)(0xFFFFu << 8);
    } else {
        const uint32_t lo = node(table, u);
        r = (int32_t)((lo << 8) + (a & 0xFFu) * (node(table, u + 1u) - lo));
    }
    r = v >= 0 ? r - (1 << 23) + 128 : -r + (1 << 23) + 127;
    return (int16_t)(r >> 8);
}

/* out[o] = sat16(MBQM32(sum_d w[o][d] * (x[d] + offset) + bias[o])); prepare bounds the int32 sum. With a
 * folded bias (bias - offset terms, from prepare) the sum is a plain dot product. */
static void fc_s8(const int8_t *x, int32_t offset, const int8_t *w, const int32_t *bias, const int32_t *folded,
                  int32_t depth, int32_t units, int32_t mult, int32_t shift, int16_t *out)
{
    int32_t o, d;
    for (o = 0; o < units; ++o) {
        const int8_t *row = w + o * depth;
        int32_t acc = 0;
        if (folded != NULL) {
            for (d = 0; d < depth; ++d) {
                acc += (int32_t)row[d] * (int32_t)x[d];
            }
            acc += folded[o];
        } else {
            for (d = 0; d < depth; ++d) {
                acc += (int32_t)row[d] * ((int32_t)x[d] + offset);
            }
            if (bias != NULL) {
                acc += bias[o];
            }
        }
        out[o] = sat16(mr_mbqm(acc, mult, shift));
    }
}

/* The int16 activations' FC: int64 sum, the 64-bit MBQM. */
static void fc_s16(const int16_t *x, int32_t offset, const int8_t *w, const int64_t *bias, int32_t depth,
                   int32_t units, int32_t mult, int32_t shift, int16_t *out)
{
    int32_t o, d;
    for (o = 0; o < units; ++o) {
        const int8_t *row = w + o * depth;
        int64_t acc = 0;
        for (d = 0; d < depth; ++d) {
            acc += (int64_t)row[d] * ((int64_t)x[d] + offset);
        }
        if (bias != NULL) {
            acc += bias[o];
        }
        out[o] = sat16(mr_mbqm64(acc, mult, shift));
    }
}

/* gate = act(sat16(gate + rec)): tanh for the cell gate (input power -12: rescale 3, shift 0), else sigmoid. */
static void activate(const mr_lstm_q_params *p, int gate_index, int16_t *gate, const int16_t *rec)
{
    int32_t j;
    for (j = 0; j < p->units; ++j) {
        const int16_t v = sat16((int32_t)gate[j] + rec[j]);
        gate[j] = gate_index == GATE_CELL ? tanh_s16(v, 3, 0, p->sigmoid_table) : sigmoid_s16(v, p->sigmoid_table);
    }
}

static int16_t mul16(int32_t a, int32_t b, int32_t mult, int32_t shift)
{
    return sat16(mr_mbqm(a * b, mult, shift));
}

/* c = clip(sat16(f*c + i*g)); b1 takes i*g as TFLite Micro's buffer does. */
static void update_cell(const mr_lstm_q_params *p, const int16_t *f, int16_t *i, const int16_t *g, int16_t *c)
{
    int32_t j;
    for (j = 0; j < p->units; ++j) {
        c[j] = mul16(f[j], c[j], p->forget_mult, p->forget_shift);
        i[j] = mul16(i[j], g[j], p->update_mult, p->update_shift);
        c[j] = sat16((int32_t)c[j] + i[j]);
        if (p->has_clip) {
            c[j] = (int16_t)MR_CLAMP((int32_t)c[j], -p->cell_clip, p->cell_clip);
        }
    }
}

/* The new hidden value of unit j from tanh(c) (b0) and the output gate (b1), in the hidden type's range. */
static int32_t hidden(const mr_lstm_q_params *p, const int16_t *c, int16_t *b0, const int16_t *o, int32_t j)
{
    int32_t v;
    b0[j] = tanh_s16(c[j], p->tanh_mult, p->tanh_shift, p->sigmoid_table);
    v = mr_mbqm((int32_t)b0[j] * o[j], p->hidden_mult, p->hidden_shift) + p->h_zp;
    return MR_CLAMP(v, p->h_min, p->h_max);
}

static int32_t row_of(int32_t time_major, int32_t batch, int32_t steps, int32_t b, int32_t t)
{
    return time_major ? t * batch + b : b * steps + t;
}

int mr_lstm_s8(const mr_lstm_q_params *p, const int8_t *in, const int8_t *const w[8], const int32_t *const bias[4],
               const int8_t *h0, const int16_t *c0, int8_t *out, int8_t *h, int16_t *c, int16_t *scratch)
{
    static const int order[3] = {GATE_FORGET, GATE_INPUT, GATE_CELL};
    const int32_t *folded = p->folded_bias;
    const int32_t units = p->units;
    int16_t *const buf[4] = {scratch, scratch + units, scratch + 2 * units, scratch + 3 * units};
    int16_t *const gate_buf[4] = {buf[1], buf[0], buf[2], buf[1]};
    int32_t b, t, j, k;
    memmove(h, h0, (size_t)(p->batch * units) * sizeof *h);
    memmove(c, c0, (size_t)(p->batch * units) * sizeof *c);
    for (b = 0; b < p->batch; ++b) {
        int8_t *hb = h + b * units;
        int16_t *cb = c + b * units;
        for (t = 0; t < p->time; ++t) {
            const int32_t row = row_of(p->time_major, p->batch, p->time, b, t);
            const int8_t *x = in + row * p->input_size;
            for (k = 0; k < 4; ++k) {
                const int g = k < 3 ? order[k] : GATE_OUTPUT;
                if (g == GATE_OUTPUT) {
                    update_cell(p, buf[0], buf[1], buf[2], cb);
                }
                fc_s8(x, -p->in_zp, w[g], bias[g], folded == NULL ? NULL : folded + g * units, p->input_size, units,
                      p->in_mult[g], p->in_shift[g], gate_buf[g]);
                fc_s8(hb, -p->h_zp, w[4 + g], NULL, folded == NULL ? NULL : folded + (4 + g) * units, units, units,
                      p->rec_mult[g], p->rec_shift[g], buf[3]);
                activate(p, g, gate_buf[g], buf[3]);
            }
            for (j = 0; j < units; ++j) {
                hb[j] = (int8_t)hidden(p, cb, buf[0], buf[1], j);
            }
            memcpy(out + row * units, hb, (size_t)units * sizeof *hb);
        }
    }
    return MR_OK;
}

int mr_lstm_s16(const mr_lstm_q_params *p, const int16_t *in, const int8_t *const w[8],
                const int64_t *const bias[4], const int16_t *h0, const int16_t *c0, int16_t *out, int16_t *h,
                int16_t *c, int16_t *scratch)
{
    static const int order[3] = {GATE_FORGET, GATE_INPUT, GATE_CELL};
    const int32_t units = p->units;
    int16_t *const buf[4] = {scratch, scratch + units, scratch + 2 * units, scratch + 3 * units};
    int16_t *const gate_buf[4] = {buf[1], buf[0], buf[2], buf[1]};
    int32_t b, t, j, k;
    memmove(h, h0, (size_t)(p->batch * units) * sizeof *h);
    memmove(c, c0, (size_t)(p->batch * units) * sizeof *c);
    for (b = 0; b < p->batch; ++b) {
        int16_t *hb = h + b * units;
        int16_t *cb = c + b * units;
        for (t = 0; t < p->time; ++t) {
            const int32_t row = row_of(p->time_major, p->batch, p->time, b, t);
            const int16_t *x = in + row * p->input_size;
            for (k = 0; k < 4; ++k) {
                const int g = k < 3 ? order[k] : GATE_OUTPUT;
                if (g == GATE_OUTPUT) {
                    update_cell(p, buf[0], buf[1], buf[2], cb);
                }
                fc_s16(x, -p->in_zp, w[g], bias[g], p->input_size, units, p->in_mult[g], p->in_shift[g],
                       gate_buf[g]);
                fc_s16(hb, -p->h_zp, w[4 + g], NULL, units, units, p->rec_mult[g], p->rec_shift[g], buf[3]);
                activate(p, g, gate_buf[g], buf[3]);
            }
            for (j = 0; j < units; ++j) {
                hb[j] = (int16_t)hidden(p, cb, buf[0], buf[1], j);
            }
            memcpy(out + row * units, hb, (size_t)units * sizeof *hb);
        }
    }
    return MR_OK;
}

/* TFLite Micro's float clamp of FC and mul results (+-FLT_MAX; NaN propagates). */
static float clampf(float v)
{
    return MR_CLAMP(v, -FLT_MAX, FLT_MAX);
}

static void fc_f32(const float *x, const float *w, const float *bias, int32_t depth, int32_t units, float *out)
{
    int32_t o, d;
    for (o = 0; o < units; ++o) {
        const float *row = w + o * depth;
        float total = 0.0f;
        for (d = 0; d < depth; ++d) {
            total += x[d] * row[d];
        }
        out[o] = clampf(total + (bias != NULL ? bias[o] : 0.0f));
    }
}

static float sigmoidf(float x)
{
    if (x > 16.619047164916992188f) {
        return 1.0f;
    }
    if (x < -9.0f) {
        return expf(x);
    }
    return 1.0f / (1.0f + expf(-x));
}

int mr_lstm_f32(const mr_lstm_f32_params *p, const float *in, const float *const w[8], const float *const bias[4],
                const float *h0, const float *c0, float *out, float *h, float *c, float *scratch)
{
    static const int order[3] = {GATE_FORGET, GATE_INPUT, GATE_CELL};
    const int32_t units = p->units;
    float *const buf[4] = {scratch, scratch + units, scratch + 2 * units, scratch + 3 * units};
    float *const gate_buf[4] = {buf[1], buf[0], buf[2], buf[1]};
    int32_t b, t, j, k;
    memmove(h, h0, (size_t)(p->batch * units) * sizeof *h);
    memmove(c, c0, (size_t)(p->batch * units) * sizeof *c);
    for (b = 0; b < p->batch; ++b) {
        float *hb = h + b * units;
        float *cb = c + b * units;
        for (t = 0; t < p->time; ++t) {
            const int32_t row = row_of(p->time_major, p->batch, p->time, b, t);
            const float *x = in + row * p->input_size;
            for (k = 0; k < 4; ++k) {
                const int g = k < 3 ? order[k] : GATE_OUTPUT;
                float *gate = gate_buf[g];
                if (g == GATE_OUTPUT) {
                    for (j = 0; j < units; ++j) {
                        cb[j] = clampf(buf[0][j] * cb[j]);
                        buf[1][j] = clampf(buf[1][j] * buf[2][j]);
                        cb[j] = cb[j] + buf[1][j];
                        if (p->cell_clip > 0.0f) {
                            cb[j] = MR_MAX(MR_MIN(p->cell_clip, cb[j]), -p->cell_clip);
                        }
                    }
                }
                fc_f32(x, w[g], bias[g], p->input_size, units, gate);
                fc_f32(hb, w[4 + g], NULL, units, units, buf[3]);
                for (j = 0; j < units; ++j) {
                    const float v = gate[j] + buf[3][j];
                    gate[j] = g == GATE_CELL ? tanhf(v) : sigmoidf(v);
                }
            }
            for (j = 0; j < units; ++j) {
                buf[0][j] = tanhf(cb[j]);
                hb[j] = clampf(buf[0][j] * buf[1][j]);
            }
            memcpy(out + row * units, hb, (size_t)units * sizeof *hb);
        }
    }
    return MR_OK;
}
