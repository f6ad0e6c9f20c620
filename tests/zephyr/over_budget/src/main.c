/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * An application with one model, so the budget report has a model share to attribute.
 */

#include <string.h>

#include <zephyr/kernel.h>

#include "sine.h"
#include "sine_vectors.h"

int main(void)
{
	memcpy(sine_input(0), vectors_sine_input[2], SINE_INPUT0_BYTES);
	printk("sine: %d\n", sine_invoke() == 0 ? *(const int8_t *)sine_output(0) : -1000);
	return 0;
}
