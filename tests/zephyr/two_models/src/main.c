/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * Two models from one file in one application (sine_a, sine_b): separate symbols, separate arenas,
 * interleaved calls that do not disturb each other, both equal to the reference interpreter.
 */

#include <stdint.h>
#include <string.h>

#include <zephyr/ztest.h>

#include "sine_a.h"
#include "sine_b.h"
#include "sine_vectors.h"

static bool overlaps(const void *a, size_t a_size, const void *b, size_t b_size)
{
	uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;

	return a0 < b0 + b_size && b0 < a0 + a_size;
}

ZTEST(micro_relay_two_models, test_separate_arenas)
{
	const void *a[] = {sine_a_input(0), sine_a_output(0)};
	const void *b[] = {sine_b_input(0), sine_b_output(0)};

	zassert_equal(SINE_A_ARENA_SIZE, SINE_B_ARENA_SIZE);
	for (int i = 0; i < 2; ++i) {
		for (int j = 0; j < 2; ++j) {
			zassert_false(overlaps(a[i], SINE_A_INPUT0_BYTES, b[j], SINE_B_INPUT0_BYTES),
				      "buffer %d of sine_a overlaps buffer %d of sine_b", i, j);
		}
	}
}

/* Fill both inputs, then invoke both: each output is its own input's reference output. */
ZTEST(micro_relay_two_models, test_interleaved_calls)
{
	for (int k = 0; k < VECTORS_SINE_COUNT; ++k) {
		int j = VECTORS_SINE_COUNT - 1 - k;

		memcpy(sine_a_input(0), vectors_sine_input[k], SINE_A_INPUT0_BYTES);
		memcpy(sine_b_input(0), vectors_sine_input[j], SINE_B_INPUT0_BYTES);
		zassert_equal(sine_a_invoke(), 0);
		zassert_equal(sine_b_invoke(), 0);
		zassert_mem_equal(sine_a_output(0), vectors_sine_expected[k], SINE_A_OUTPUT0_BYTES, "sine_a %d", k);
		zassert_mem_equal(sine_b_output(0), vectors_sine_expected[j], SINE_B_OUTPUT0_BYTES, "sine_b %d", j);
	}
}

ZTEST_SUITE(micro_relay_two_models, NULL, NULL, NULL, NULL, NULL);
