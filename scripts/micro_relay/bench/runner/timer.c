/* Micro Relay bench runner: SysTick timing (see timer.h). */
#include "timer.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYST_CSR_ENABLE 1u
#define SYST_CSR_TICKINT 2u
#define SYST_CSR_CLKSOURCE_CPU 4u

/* A smaller reload makes wraps frequent: the calibration build uses one to test the wrap handling. */
#ifndef MRB_SYSTICK_RELOAD
#define MRB_SYSTICK_RELOAD 0xFFFFFFu
#endif

static volatile uint32_t wraps;

void mrb_systick_handler(void)
{
    wraps = wraps + 1u;
}

void mrb_timer_start(void)
{
    SYST_CSR = 0u;
    SYST_RVR = MRB_SYSTICK_RELOAD;
    SYST_CVR = 0u; /* any write clears the counter; it reloads on the next tick */
    wraps = 0u;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE_CPU;
}

/*
 * Ticks since the start. The counter runs RELOAD, ..., 1, 0 and pends the wrap interrupt on reaching 0,
 * so by the time 0 is read the wrap is already counted: 0 is the first tick of a period, not the last.
 */
static uint64_t ticks_now(uint32_t *counter)
{
    uint32_t before, value;
    do {
        before = wraps;
        value = SYST_CVR;
    } while (before != wraps);
    *counter = value;
    return (uint64_t)before * (MRB_SYSTICK_RELOAD + 1u) + (value ? MRB_SYSTICK_RELOAD + 1u - value : 0u);
}

uint64_t mrb_timer_ticks(void)
{
    uint32_t value;
    return ticks_now(&value);
}

static void wait_edge(void)
{
    uint32_t first, now;
    __asm__ volatile("ldr %0, [%2]\n"
                     "1:\n\t"
                     "ldr %1, [%2]\n\t"
                     "cmp %1, %0\n\t"
                     "beq 1b\n\t"
                     : "=&r"(first), "=&r"(now)
                     : "r"(&SYST_CVR)
                     : "cc", "memory");
}

/* Spins of exactly 4 instructions (ldr, adds, cmp, beq) until the counter leaves `value`. */
static uint32_t spins_to_edge(uint32_t value)
{
    uint32_t spins = 0u, now;
    __asm__ volatile("1:\n\t"
                     "ldr %1, [%2]\n\t"
                     "adds %0, %0, #1\n\t"
                     "cmp %1, %3\n\t"
                     "beq 1b\n\t"
                     : "+&r"(spins), "=&r"(now)
                     : "r"(&SYST_CVR), "r"(value)
                     : "cc", "memory");
    return spins;
}

/*
 * The region a cycle estimate counts (bench/cycles: a QEMU plugin opens it when the first function runs and
 * closes it when the second does). Their bodies differ, so the linker never folds them into one; the empty
 * call's region carries the same marker instructions and is taken off every measurement.
 */
__attribute__((noinline, noipa)) void mrb_region_begin(void)
{
    __asm__ volatile("nop" ::: "memory");
}

__attribute__((noinline, noipa)) void mrb_region_end(void)
{
    __asm__ volatile("nop\n\tnop" ::: "memory");
}

int mrb_measure(int (*fn)(void), mrb_sample *sample)
{
    uint64_t start, end;
    uint32_t value;
    int status;
    wait_edge();
    start = ticks_now(&value);
    mrb_region_begin();
    status = fn();
    mrb_region_end();
    end = ticks_now(&value);
    sample->spins = spins_to_edge(value);
    /* The edge the spins ended on comes one tick after the last value read. */
    sample->ticks = end - start + 1u;
    return status;
}
