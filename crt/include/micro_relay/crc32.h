/*
 * Weight integrity: CRC-32 of a model's constant arrays, what NAME_verify() checks its flash against (after a
 * firmware update, or with the weights in external flash). The CRC is IEEE 802.3's, zlib's crc32(): reflected
 * polynomial 0xEDB88320, initial value and final xor 0xFFFFFFFF.
 */
#ifndef MICRO_RELAY_CRC32_H
#define MICRO_RELAY_CRC32_H

#include "crt.h"

/* One constant array of the model: `bytes` bytes at `data`. */
typedef struct {
    const void *data;
    size_t bytes;
} mr_const_span;

/* zlib's crc32(crc, data, bytes): 0 starts a new CRC, and feeding a CRC's result back continues it. */
uint32_t mr_crc32(uint32_t crc, const void *data, size_t bytes);

/* MR_OK when the CRC-32 of the `count` spans, one after another, is `expected`; MR_ERR_WEIGHTS otherwise. */
int mr_verify_spans(const mr_const_span *spans, size_t count, uint32_t expected);

#endif
