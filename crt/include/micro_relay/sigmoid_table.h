/* The int16 LOGISTIC and TANH table: sigmoid(k / 24) in 0.16 fixed point for k = 0..255, raised so that
 * linear interpolation between entries follows the curve (scripts/micro_relay/ops/_logistic16.py). */
#ifndef MICRO_RELAY_SIGMOID_TABLE_H
#define MICRO_RELAY_SIGMOID_TABLE_H

#include "crt.h"

#define MR_SIGMOID_TABLE_SIZE 256

extern const uint16_t mr_sigmoid_table[MR_SIGMOID_TABLE_SIZE];

#endif
