/*
 * Micro Relay bench runner: Arm semihosting, the runner's only channel to the host.
 *
 * QEMU services a `bkpt 0xab` with the operation in r0 and a pointer to its argument block in r1, so the
 * runner needs no UART driver and can read its input and write its outputs as host files.
 */
#ifndef MRB_SEMIHOST_H
#define MRB_SEMIHOST_H

#include <stddef.h>
#include <stdint.h>

/* Open modes (the ISO C fopen modes, in the order the semihosting specification numbers them). */
#define MRB_OPEN_RB 1
#define MRB_OPEN_WB 5

void mrb_puts(const char *text);
/* Print "label value" with value in hexadecimal: no printf, no 64-bit division. */
void mrb_put_hex(const char *label, uint64_t value);
int mrb_open(const char *path, int mode);
/* Returns the number of bytes NOT transferred (0 on success), as the semihosting calls do. */
size_t mrb_read(int handle, void *buffer, size_t size);
size_t mrb_write(int handle, const void *buffer, size_t size);
int mrb_seek(int handle, size_t position);
void mrb_close(int handle);
/* End the QEMU run: status 0 leaves QEMU with exit code 0, anything else with exit code 1. */
void mrb_exit(int status) __attribute__((noreturn));

#endif
