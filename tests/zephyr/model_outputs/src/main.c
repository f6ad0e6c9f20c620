/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * Run models compiled by micro_relay_model() on the device and compare every output byte with the numpy
 * reference interpreter's, computed at build time (<name>_vectors.h).
 */

#include <string.h>

#include <zephyr/ztest.h>

#include "kws.h"
#include "kws_vectors.h"
#include "sine.h"
#include "sine_vectors.h"

ZTEST(micro_relay_model_outputs, test_sine_matches_reference)
{
	for (int k = 0; k < VECTORS_SINE_COUNT; ++k) {
		memcpy(sine_input(0), vectors_sine_input[k], SINE_INPUT0_BYTES);
		zassert_equal(sine_invoke(), 0);
		zassert_mem_equal(sine_output(0), vectors_sine_expected[k], SINE_OUTPUT0_BYTES,
				  "sine vector %d differs from the reference interpreter", k);
	}
}

ZTEST(micro_relay_model_outputs, test_kws_matches_reference)
{
	for (int k = 0; k < VECTORS_KWS_COUNT; ++k) {
		memcpy(kws_input(0), vectors_kws_input[k], KWS_INPUT0_BYTES);
		zassert_equal(kws_invoke(), 0);
		zassert_mem_equal(kws_output(0), vectors_kws_expected[k], KWS_OUTPUT0_BYTES,
				  "kws vector %d differs from the reference interpreter", k);
	}
}

/* Refilling the input and invoking again gives the same bytes: no state survives an invoke. */
ZTEST(micro_relay_model_outputs, test_invoke_is_repeatable)
{
	int8_t first[KWS_OUTPUT0_BYTES];

	memcpy(kws_input(0), vectors_kws_input[1], KWS_INPUT0_BYTES);
	zassert_equal(kws_invoke(), 0);
	memcpy(first, kws_output(0), sizeof(first));
	memcpy(kws_input(0), vectors_kws_input[0], KWS_INPUT0_BYTES);
	zassert_equal(kws_invoke(), 0);
	memcpy(kws_input(0), vectors_kws_input[1], KWS_INPUT0_BYTES);
	zassert_equal(kws_invoke(), 0);
	zassert_mem_equal(kws_output(0), first, sizeof(first));
}

/* The generated interface agrees with the model the vectors were computed on. */
ZTEST(micro_relay_model_outputs, test_interface)
{
	zassert_equal(SINE_INPUT0_SIZE, VECTORS_SINE_INPUT_SIZE);
	zassert_equal(SINE_OUTPUT0_SIZE, VECTORS_SINE_OUTPUT_SIZE);
	zassert_equal(KWS_INPUT0_SIZE, VECTORS_KWS_INPUT_SIZE);
	zassert_equal(KWS_OUTPUT0_SIZE, VECTORS_KWS_OUTPUT_SIZE);
	zassert_equal(kws_input_size(0), KWS_INPUT0_BYTES);
	zassert_equal(kws_output_size(0), KWS_OUTPUT0_BYTES);
	zassert_is_null(kws_input(1));
	zassert_is_null(kws_output(-1));
	/* Tensors sit at multiples of 4 bytes in the arena (the planner's alignment; scratch the kernels ask for
	 * may come first, so the input need not start the arena). The arena itself is 16-byte aligned:
	 * test_zephyr_twister.py checks its symbol in the ELF. */
	zassert_equal((uintptr_t)kws_input(0) % 4, 0, "tensors are 4-byte aligned in the arena");
}

ZTEST_SUITE(micro_relay_model_outputs, NULL, NULL, NULL, NULL, NULL);
