/*
 * Micro Relay model server: the device side of the host's `micro-relay device` commands, built from the same
 * generated NAME.c the application links. It answers the framed protocol of docs/device-protocol.md over any
 * byte channel (a UART) and needs nothing from an OS. A port supplies the channel and a counter (below); the
 * host writes mrs_model.h, which maps the mrs_* names onto the model's NAME_* API and holds the model's
 * identity (its hello payload).
 */
#ifndef MRS_SERVER_H
#define MRS_SERVER_H

#include <stddef.h>
#include <stdint.h>

/* What a port provides. */
uint8_t mrs_port_read_byte(void);                          /* blocks until a byte arrives */
void mrs_port_write(const uint8_t *data, size_t size);      /* blocks until sent */
uint64_t mrs_port_now(void);                               /* the counter, in the port's unit */
/* The count of one call of fn, fn's return value in *status; the server takes off an empty call's count. */
uint64_t mrs_port_measure(int (*fn)(void), int *status);
/* MRS_COUNT_UNIT: 0 instructions (QEMU -icount), 1 core cycles (DWT CYCCNT). */

/* Answer requests until the power goes. */
void mrs_serve(void) __attribute__((noreturn));

/* Called by the profiled NAME.c before each layer (its step) and with -1 at the end of a run. */
void mrb_profile_mark(int step);

#endif
