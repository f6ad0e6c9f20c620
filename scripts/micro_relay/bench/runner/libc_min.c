/*
 * Micro Relay bench runner: the few C library functions compilers emit calls to (memcpy, memset, memmove,
 * memcmp) and the errno location newlib's libm writes to, so the runner links without any C library.
 * Loop-to-memset/memcpy conversion is off here: it would turn these bodies into calls to themselves.
 */
#include <stddef.h>
#include <stdint.h>

#define MRB_PLAIN_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))

typedef uint32_t __attribute__((may_alias)) mrb_word;

MRB_PLAIN_LOOPS void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0u) {
        for (; n >= 4u; n -= 4u, d += 4, s += 4) {
            *(mrb_word *)(void *)d = *(const mrb_word *)(const void *)s;
        }
    }
    while (n--) {
        *d++ = *s++;
    }
    return dst;
}

MRB_PLAIN_LOOPS void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d <= s || d >= s + n) {
        return memcpy(dst, src, n);
    }
    while (n--) {
        d[n] = s[n];
    }
    return dst;
}

MRB_PLAIN_LOOPS void *memset(void *dst, int value, size_t n)
{
    unsigned char *d = dst;
    const uint32_t word = (uint32_t)(unsigned char)value * 0x01010101u;
    while (n && ((uintptr_t)d & 3u)) {
        *d++ = (unsigned char)value;
        --n;
    }
    for (; n >= 4u; n -= 4u, d += 4) {
        *(mrb_word *)(void *)d = word;
    }
    while (n--) {
        *d++ = (unsigned char)value;
    }
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n; --n, ++x, ++y) {
        if (*x != *y) {
            return *x < *y ? -1 : 1;
        }
    }
    return 0;
}

static int mrb_errno;

int *__errno(void)
{
    return &mrb_errno;
}
