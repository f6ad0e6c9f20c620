/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * Test-only (MICRO_RELAY_TEST_WILD_WRITE): kws.c's average pool comes here. The real kernel runs, then one
 * byte is written to kernel_victim, a variable of the kernel's (outside micro_relay_partition): the kind of
 * write anywhere a bad input or a kernel bug makes. In a user-mode thread the MPU faults on it.
 */
#include <stdint.h>

#include "micro_relay/avg_pool2d.h"

extern volatile uint32_t kernel_victim;

int test_wild_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out);

int test_wild_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out)
{
	const int status = mr_avg_pool2d_s8(p, in, out);

	*(volatile uint8_t *)&kernel_victim = 0x11u;
	return status;
}
