/*
 * The model server's counter on a Cortex-M3/M4/M7/M33 board: the DWT cycle counter (CYCCNT), in core cycles
 * (build with -DMRS_COUNT_UNIT=1). A board's firmware adds mrs_port_read_byte and mrs_port_write for its UART,
 * calls mrs_dwt_start() once and then mrs_serve().
 *
 * CYCCNT is 32 bits wide; mrs_port_now() extends it with the wraps it sees, so it must be called at least once
 * every 2^32 cycles (the per-layer marks are). QEMU does not model the DWT (its registers read as zero), so
 * this port runs on boards only, and the repository's tests build it without running it.
 */
#include <stdint.h>

#include "mrs_server.h"

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CTRL_CYCCNTENA 1u
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define DWT_LAR (*(volatile uint32_t *)0xE0001FB0u) /* Cortex-M7: the DWT is locked until this is written */
#define DWT_LAR_KEY 0xC5ACCE55u

void mrs_dwt_start(void);

static uint32_t last_read, high;

uint64_t mrs_port_now(void)
{
    const uint32_t now = DWT_CYCCNT;
    if (now < last_read) {
        ++high;
    }
    last_read = now;
    return (uint64_t)high << 32 | now;
}

uint64_t mrs_port_measure(int (*fn)(void), int *status)
{
    const uint64_t start = mrs_port_now();
    *status = fn();
    return mrs_port_now() - start;
}

void mrs_dwt_start(void)
{
    DEMCR |= DEMCR_TRCENA;
    DWT_LAR = DWT_LAR_KEY;
    DWT_CYCCNT = 0u;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    last_read = 0u;
    high = 0u;
}
