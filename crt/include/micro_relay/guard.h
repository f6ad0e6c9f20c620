/*
 * Debug guards (micro-relay compile --debug-guards): canary bytes after every tensor and scratch buffer of the
 * arena, filled when the buffer's first layer starts and checked after every layer it is live at, so that an
 * out-of-bounds write is caught at the layer that made it. Only a debug build's NAME.c calls these.
 */
#ifndef MICRO_RELAY_GUARD_H
#define MICRO_RELAY_GUARD_H

#include "crt.h"

/* Byte i of every canary: a pattern no zero fill or small value run leaves by chance. */
#define MR_GUARD_BYTE(i) ((uint8_t)(0xA5u ^ (0x3Bu * ((uint32_t)(i) & 0xFFu))))

/* One canary: `length` bytes at arena offset `offset`, after a buffer live from step `first` to `last`. */
typedef struct {
    uint32_t offset, length;
    int32_t first, last;
} mr_canary;

/* Before layer `step` (or with step -1 at the end of a successful run): write `step` into the int32 at arena
   offset `slot` (NAME_failed_layer_of reads it) and fill the canaries of the buffers that start at `step`. */
int mr_guard_begin(uint8_t *base, const mr_canary *canaries, uint32_t count, uint32_t slot, int32_t step);
/* After layer `step`: MR_ERR_GUARD if a canary of a buffer live at `step` changed, else MR_OK. */
int mr_guard_check(const uint8_t *base, const mr_canary *canaries, uint32_t count, int32_t step);

#endif
