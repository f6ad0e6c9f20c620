/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * hello_model: a sine network compiled to C at build time by micro_relay_model(), run on the device.
 *
 * For x = k * 2pi / 8 it quantizes x, runs the model, prints y next to sin(x), and compares the int8
 * output with the numpy reference interpreter's. Inputs, sin(x) and the reference outputs are computed
 * at build time (sine_vectors.h), so the device needs no libm.
 */

#include <stdint.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "sine.h"
#include "sine_vectors.h"

/* "-0.995": printk has no %f on every configuration. */
static const char *milli_text(char *buf, size_t size, int32_t milli)
{
	uint32_t magnitude = milli < 0 ? (uint32_t)(-milli) : (uint32_t)milli;

	snprintk(buf, size, "%s%u.%03u", milli < 0 ? "-" : "", magnitude / 1000U, magnitude % 1000U);
	return buf;
}

static int32_t to_milli(float value)
{
	return (int32_t)(value * 1000.0f + (value >= 0.0f ? 0.5f : -0.5f));
}

int main(void)
{
	char xs[16], ys[16], ss[16], es[16];
	int matches = 0;
	int32_t worst = 0;

	printk("hello_model: sine network, arena %u B\n", (unsigned int)SINE_ARENA_SIZE);
	for (int k = 0; k < VECTORS_SINE_COUNT; ++k) {
		int8_t *in = sine_input(0);
		const int8_t *out;
		int32_t y, error;

		memcpy(in, vectors_sine_input[k], VECTORS_SINE_INPUT_SIZE);
		if (sine_invoke() != 0) {
			printk("hello_model: sine_invoke failed\n");
			return 0;
		}
		out = sine_output(0);
		y = to_milli((out[0] - SINE_OUTPUT0_ZERO_POINT) * SINE_OUTPUT0_SCALE);
		error = y > vectors_sine_sin_milli[k] ? y - vectors_sine_sin_milli[k] : vectors_sine_sin_milli[k] - y;
		worst = error > worst ? error : worst;
		matches += out[0] == vectors_sine_expected[k][0];
		printk("x=%s y=%s sin=%s (q=%d, reference %d)\n", milli_text(xs, sizeof(xs), vectors_sine_x_milli[k]),
		       milli_text(ys, sizeof(ys), y), milli_text(ss, sizeof(ss), vectors_sine_sin_milli[k]),
		       out[0], vectors_sine_expected[k][0]);
	}
	printk("hello_model: %d of %d outputs equal the reference interpreter's\n", matches, VECTORS_SINE_COUNT);
	printk("hello_model: max |y - sin(x)| = %s\n", milli_text(es, sizeof(es), worst));
	return 0;
}
