/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * The model server's port on Zephyr: the chosen zephyr,console UART as the channel, polled (prj.conf turns
 * the UART console and the boot banner off, so no other byte reaches it), and the kernel's cycle counter as
 * the counter (MRS_COUNT_UNIT 2: timer cycles, sys_clock_hw_cycles_per_sec() a second). On a Cortex-M board
 * with a DWT, port_dwt.c counts core cycles instead; on native_sim the timer is simulated and does not advance
 * while the model computes, so its counts there are zero.
 */
#include <zephyr/device.h>
#include <zephyr/drivers/uart.h>
#include <zephyr/kernel.h>

#include "mrs_server.h"

static const struct device *const uart = DEVICE_DT_GET(DT_CHOSEN(zephyr_console));

uint8_t mrs_port_read_byte(void)
{
	unsigned char byte;

	while (uart_poll_in(uart, &byte) != 0) {
		k_sleep(K_TICKS(1)); /* nothing received: let the rest of the system (and time) run */
	}
	return byte;
}

void mrs_port_write(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < size; ++i) {
		uart_poll_out(uart, data[i]);
	}
}

uint64_t mrs_port_now(void)
{
#if defined(CONFIG_TIMER_HAS_64BIT_CYCLE_COUNTER)
	return k_cycle_get_64();
#else
	/* the 32-bit counter with the wraps it has seen: called at least once a wrap (every layer marks) */
	static uint32_t last, high;
	const uint32_t now = k_cycle_get_32();

	if (now < last) {
		++high;
	}
	last = now;
	return (uint64_t)high << 32 | now;
#endif
}

uint64_t mrs_port_measure(int (*fn)(void), int *status)
{
	const uint64_t start = mrs_port_now();

	*status = fn();
	return mrs_port_now() - start;
}

int main(void)
{
	if (!device_is_ready(uart)) {
		return 0;
	}
	mrs_serve();
}
