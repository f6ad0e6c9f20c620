/*
 * Micro Relay C runtime: common definitions.
 *
 * The runtime is plain C99: no allocation, no OS calls, no recursion, no static mutable state (docs/runtime.md).
 * Kernels take a constant parameter struct (emitted by the compiler into flash) and tensor pointers into the
 * model's arena or its constant weights, and return a status: MR_OK, or one of the MR_ERR_* codes below.
 * Signed right shifts are arithmetic, as on every compiler Micro Relay targets (GCC, Clang).
 */
#ifndef MICRO_RELAY_CRT_H
#define MICRO_RELAY_CRT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The runtime's C ABI: the kernels' names, signatures and parameter structs a generated NAME.c calls. Each
 * NAME.c names the version it was generated for and stops with #error when it is built against another
 * (a --no-runtime build against a runtime built separately). The compiler reads the number from this line.
 * 1: the runtime before versions (kernels returned void); 2: kernels return an int status.
 */
#define MR_CRT_ABI_VERSION 2

/* Kernel status, also what NAME_invoke returns: the first nonzero status stops the model. */
#define MR_OK 0
/* A CMSIS-NN function refused its arguments (crt/cmsis_nn/: the compiler's checks should make it impossible). */
#define MR_ERR_CMSIS_NN 1
/* The arena scratch a kernel was given (p->scratch_bytes bytes, or NULL) is smaller than the path it runs needs. */
#define MR_ERR_SCRATCH 2
/* NAME_invoke_with got a NULL arena or one not aligned to 16 bytes. */
#define MR_ERR_ARENA 3
/* A runtime index (gather positions) is outside the axis it indexes; TFLite Micro fails the same way. */
#define MR_ERR_INDEX 4
/* An input outside the op's domain, where TFLite Micro's Invoke fails too (int8 RSQRT below the zero point). */
#define MR_ERR_DOMAIN 5
/* A debug build (--debug-guards) found a canary after a tensor or scratch buffer changed: the layer that just ran
   wrote out of bounds; NAME_failed_layer_of(arena) names it (micro_relay/guard.h). */
#define MR_ERR_GUARD 6
/* NAME_verify() found the model's constant arrays in flash differ from the CRC-32 the compiler computed
   (micro_relay/crc32.h): a damaged or mismatched weights image. */
#define MR_ERR_WEIGHTS 7
/* NAME_invoke() of a model of an arena group was called while a model of the same group was running on the
   group's arena (checked unless NDEBUG is defined); nothing ran. */
#define MR_ERR_BUSY 8

/* A kernel call in a generated NAME_invoke_with: a status other than MR_OK is returned at once. */
#define MR_TRY(call)                                                                                           \
    do {                                                                                                       \
        const int mr_status_ = (call);                                                                         \
        if (mr_status_ != MR_OK) {                                                                             \
            return mr_status_;                                                                                 \
        }                                                                                                      \
    } while (0)

#if defined(__GNUC__) || defined(__clang__)
#define MR_ALIGNED(n) __attribute__((aligned(n)))
#define MR_SECTION(s) __attribute__((section(s)))
#else
#define MR_ALIGNED(n)
#define MR_SECTION(s)
#endif

/*
 * A compile-time check at file scope, for C99 (no _Static_assert): a typedef of a char array whose size is -1,
 * an error, when cond is false. name makes the typedef unique (it must be unique in the file) and shows in the
 * compiler's message. Kernels whose assembly reads struct fields at literal offsets check each offset with it
 * (MR_CHECK_OFFSET), so that changing the struct breaks the build rather than the arithmetic.
 */
#define MR_STATIC_ASSERT(name, cond) typedef char mr_static_assert_##name[(cond) ? 1 : -1]
/* offsetof(type, member) == offset, named after the type and a name for the member (member may be a path, q.k). */
#define MR_CHECK_OFFSET(type, name, member, offset) MR_STATIC_ASSERT(type##_##name, offsetof(type, member) == (offset))

/* std::min / std::max semantics: a NaN first argument propagates, as in TFLite Micro's float clamps. */
#define MR_MIN(a, b) ((b) < (a) ? (b) : (a))
#define MR_MAX(a, b) ((a) < (b) ? (b) : (a))
#define MR_CLAMP(x, lo, hi) MR_MIN(MR_MAX((x), (lo)), (hi))

/* Element types, as the generated headers name them in NAME_INPUTi_DTYPE / NAME_OUTPUTi_DTYPE. */
#define MR_FLOAT32 1
#define MR_INT8 2
#define MR_UINT8 3
#define MR_INT16 4
#define MR_INT32 5
#define MR_INT64 6
#define MR_BOOL 7
#define MR_UINT32 8
#define MR_UINT64 9

#endif /* MICRO_RELAY_CRT_H */
