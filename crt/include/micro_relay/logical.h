/* logical_and, logical_or (numpy broadcasting, see elementwise.h) and logical_not on bool (uint8_t 0/1) tensors. */
#ifndef MICRO_RELAY_LOGICAL_H
#define MICRO_RELAY_LOGICAL_H

#include "binary.h"

typedef struct {
    int32_t size;
} mr_logical_not_params;

int mr_logical_and_bool(const mr_binary_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out);
int mr_logical_or_bool(const mr_binary_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out);
int mr_logical_not_bool(const mr_logical_not_params *p, const uint8_t *in, uint8_t *out);

#endif
