/*
 * Micro Relay bench runner: vector table and reset code for the Armv7-M / Armv8-M cores QEMU's MPS2
 * boards model. The linker script places mrb_vectors first in flash (where each board boots from, in its
 * secure alias on the AN505) and supplies the section bounds used below.
 */
#include <stdint.h>

#include "semihost.h"
#include "timer.h"

extern uint32_t __stack_top[];
extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];

int main(void);

#define SCB_VTOR (*(volatile uint32_t *)0xE000ED08u)
#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)

void mrb_reset_handler(void);
static void fault_handler(void);
static void unexpected_handler(void);

typedef void (*mrb_vector)(void);

__attribute__((section(".vectors"), used)) const mrb_vector mrb_vectors[16] = {
    (mrb_vector)(uintptr_t)__stack_top,
    mrb_reset_handler,
    unexpected_handler, /* NMI */
    fault_handler,      /* HardFault */
    fault_handler,      /* MemManage */
    fault_handler,      /* BusFault */
    fault_handler,      /* UsageFault */
    fault_handler,      /* SecureFault (Armv8-M) */
    0, 0, 0,
    unexpected_handler, /* SVCall */
    unexpected_handler, /* DebugMonitor */
    0,
    unexpected_handler, /* PendSV */
    mrb_systick_handler,
};

void mrb_reset_handler(void)
{
    uint32_t *src = __data_load, *dst;
    for (dst = __data_start; dst < __data_end; ++dst) {
        *dst = *src++;
    }
    for (dst = __bss_start; dst < __bss_end; ++dst) {
        *dst = 0u;
    }
    SCB_VTOR = (uint32_t)(uintptr_t)mrb_vectors;
#if defined(__ARM_FP)
    SCB_CPACR |= 0xFu << 20; /* full access to CP10 and CP11: the FPU */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    mrb_exit(main());
}

static void fault_handler(void)
{
    mrb_puts("mr-bench: fault\n");
    mrb_put_hex("mr-bench: cfsr", SCB_CFSR);
    mrb_put_hex("mr-bench: hfsr", SCB_HFSR);
    mrb_exit(1);
}

static void unexpected_handler(void)
{
    mrb_puts("mr-bench: unexpected exception\n");
    mrb_exit(1);
}
