/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * Run the matrix model on every fixed input and compare each output byte with the reference interpreter's
 * (model_vectors.h, computed at build time).
 */

#include <string.h>

#include <zephyr/kernel.h>

#include "model.h"
#include "model_vectors.h"

int main(void)
{
	int matched = 0;

	for (int k = 0; k < VECTORS_MODEL_COUNT; ++k) {
		memcpy(model_input(0), vectors_model_input[k], MODEL_INPUT0_BYTES);
		int status = model_invoke();

		if (status == 0 && memcmp(model_output(0), vectors_model_expected[k], MODEL_OUTPUT0_BYTES) == 0) {
			++matched;
		} else {
			printk("board_matrix: input %d differs from the reference (status %d)\n", k, status);
		}
	}
	printk("board_matrix: %d of %d inputs match the reference interpreter, arena %d B\n", matched,
	       VECTORS_MODEL_COUNT, MODEL_ARENA_SIZE);
	return 0;
}
