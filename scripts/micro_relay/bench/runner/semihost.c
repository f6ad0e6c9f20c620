/* Micro Relay bench runner: semihosting calls (see semihost.h). */
#include "semihost.h"

#define SYS_OPEN 0x01
#define SYS_CLOSE 0x02
#define SYS_WRITE0 0x04
#define SYS_WRITE 0x05
#define SYS_READ 0x06
#define SYS_SEEK 0x0A
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023

static uintptr_t semihost(uintptr_t op, const void *arg)
{
    register uintptr_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static size_t length(const char *text)
{
    size_t n = 0;
    while (text[n]) {
        ++n;
    }
    return n;
}

void mrb_puts(const char *text)
{
    semihost(SYS_WRITE0, text);
}

void mrb_put_hex(const char *label, uint64_t value)
{
    char line[64];
    size_t n = length(label), i;
    int shift;
    if (n > sizeof line - 24) {
        n = sizeof line - 24;
    }
    for (i = 0; i < n; ++i) {
        line[i] = label[i];
    }
    line[n++] = ' ';
    line[n++] = '0';
    line[n++] = 'x';
    for (shift = 60; shift >= 0; shift -= 4) {
        line[n++] = "0123456789abcdef"[(value >> shift) & 0xF];
    }
    line[n++] = '\n';
    line[n] = '\0';
    mrb_puts(line);
}

int mrb_open(const char *path, int mode)
{
    const uintptr_t args[3] = {(uintptr_t)path, (uintptr_t)mode, length(path)};
    return (int)semihost(SYS_OPEN, args);
}

size_t mrb_read(int handle, void *buffer, size_t size)
{
    const uintptr_t args[3] = {(uintptr_t)handle, (uintptr_t)buffer, size};
    return semihost(SYS_READ, args);
}

size_t mrb_write(int handle, const void *buffer, size_t size)
{
    const uintptr_t args[3] = {(uintptr_t)handle, (uintptr_t)buffer, size};
    return semihost(SYS_WRITE, args);
}

int mrb_seek(int handle, size_t position)
{
    const uintptr_t args[2] = {(uintptr_t)handle, position};
    return (int)semihost(SYS_SEEK, args);
}

void mrb_close(int handle)
{
    const uintptr_t args[1] = {(uintptr_t)handle};
    semihost(SYS_CLOSE, args);
}

void mrb_exit(int status)
{
    /* On 32-bit targets SYS_EXIT takes the reason itself; QEMU maps ApplicationExit to 0, others to 1. */
    semihost(SYS_EXIT, (const void *)(uintptr_t)(status == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                             : ADP_STOPPED_RUN_TIME_ERROR));
    for (;;) {
    }
}
