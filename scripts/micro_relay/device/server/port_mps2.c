/*
 * The model server on QEMU's MPS2 boards (mps2-an385, -an386, -an500): the bare-metal bench runner's startup
 * and SysTick timer (bench/runner), the board's CMSDK APB UART0 as the channel (QEMU's first -serial).
 *
 * Counts are instructions: under `-icount shift=0` one guest instruction is one nanosecond of virtual time, so
 * a SysTick tick on the processor clock is MRS_NS_PER_TICK instructions (runner/timer.h). A call's count is
 * exact (mrb_measure; the server takes off an empty call's count); the per-layer marks have one tick of resolution.
 */
#include <stdint.h>

#include "mrs_server.h"
#include "timer.h"

#define UART0_BASE 0x40004000u
#define UART_DATA (*(volatile uint32_t *)(UART0_BASE + 0x00u))
#define UART_STATE (*(volatile uint32_t *)(UART0_BASE + 0x04u))
#define UART_CTRL (*(volatile uint32_t *)(UART0_BASE + 0x08u))
#define UART_BAUDDIV (*(volatile uint32_t *)(UART0_BASE + 0x10u))
#define UART_STATE_TX_FULL 1u
#define UART_STATE_RX_FULL 2u
#define UART_CTRL_TX_EN 1u
#define UART_CTRL_RX_EN 2u

#ifndef MRS_NS_PER_TICK
#error "MRS_NS_PER_TICK: instructions per SysTick tick under -icount shift=0 (bench/machines.py)"
#endif


uint8_t mrs_port_read_byte(void)
{
    while ((UART_STATE & UART_STATE_RX_FULL) == 0u) {
    }
    return (uint8_t)UART_DATA;
}

void mrs_port_write(const uint8_t *data, size_t size)
{
    size_t i;
    for (i = 0; i < size; ++i) {
        while ((UART_STATE & UART_STATE_TX_FULL) != 0u) {
        }
        UART_DATA = data[i];
    }
}

uint64_t mrs_port_now(void)
{
    return mrb_timer_ticks() * MRS_NS_PER_TICK;
}

uint64_t mrs_port_measure(int (*fn)(void), int *status)
{
    mrb_sample sample;
    *status = mrb_measure(fn, &sample);
    return sample.ticks * MRS_NS_PER_TICK - 4u * (uint64_t)sample.spins;
}

int main(void)
{
    UART_BAUDDIV = 16u;
    UART_CTRL = UART_CTRL_TX_EN | UART_CTRL_RX_EN;
    mrb_timer_start();
    mrs_serve();
}
