/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * mobilenet_v2: MobileNetV2 0.75 at 224x224 RGB, int8, compiled to C at build time by micro_relay_model() to fit
 * the RAM of a 192 KB Cortex-M4: its high-resolution layers run row by row and in patches, so the arena is
 * under 176 KB where layer by layer it would be 1.2 MB.
 *
 * It runs one fixed test image, prints the class the model picks, and compares all scores with the numpy
 * reference interpreter's, computed at build time (mbv2_vectors.h).
 */

#include <stdint.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "mbv2.h"
#include "mbv2_vectors.h"

int main(void)
{
	int passed = 0;

	printk("mobilenet_v2: MobileNetV2 0.75 224x224x3 int8, %d classes, arena %u B\n", MBV2_OUTPUT0_SIZE,
	       (unsigned int)MBV2_ARENA_SIZE);
	for (int v = 0; v < VECTORS_MBV2_COUNT; ++v) {
		const int8_t *scores;
		uint32_t start, cycles;
		int best = 0, equal = 0;

		memcpy(mbv2_input(0), vectors_mbv2_input[v], MBV2_INPUT0_BYTES);
		start = k_cycle_get_32();
		if (mbv2_invoke() != 0) {
			printk("mobilenet_v2: mbv2_invoke failed\n");
			return 0;
		}
		cycles = k_cycle_get_32() - start;
		scores = mbv2_output(0);
		for (int c = 0; c < MBV2_OUTPUT0_SIZE; ++c) {
			best = scores[c] > scores[best] ? c : best;
			equal += scores[c] == vectors_mbv2_expected[v][c];
		}
		printk("input %d: class %d, reference class %d, %d of %d scores equal the reference, %u cycles\n", v,
		       best, vectors_mbv2_class[v], equal, MBV2_OUTPUT0_SIZE, cycles);
		passed += best == vectors_mbv2_class[v] && equal == MBV2_OUTPUT0_SIZE;
	}
	printk("mobilenet_v2: %d of %d inputs match the reference interpreter\n", passed, VECTORS_MBV2_COUNT);
	return 0;
}
