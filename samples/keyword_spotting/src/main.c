/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * keyword_spotting: a DS-CNN-shaped int8 network (49 x 10 MFCC features in, 12 keyword scores out)
 * compiled to C at build time by micro_relay_model(), run on the device on fixed test inputs.
 *
 * For each input it prints the class the model picks and its score, and compares all scores with the
 * numpy reference interpreter's, computed at build time (kws_vectors.h).
 */

#include <stdint.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "kws.h"
#include "kws_vectors.h"

/* The label set of the MLPerf Tiny keyword-spotting task (Speech Commands v2). */
static const char *const labels[KWS_OUTPUT0_SIZE] = {
	"down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes", "silence", "unknown",
};

int main(void)
{
	int passed = 0;

	printk("keyword_spotting: DS-CNN, input %u B, %d classes, arena %u B\n",
	       (unsigned int)KWS_INPUT0_BYTES, KWS_OUTPUT0_SIZE, (unsigned int)KWS_ARENA_SIZE);
	for (int v = 0; v < VECTORS_KWS_COUNT; ++v) {
		const int8_t *scores;
		uint32_t start, cycles;
		int best = 0, equal = 0;

		memcpy(kws_input(0), vectors_kws_input[v], KWS_INPUT0_BYTES);
		start = k_cycle_get_32();
		if (kws_invoke() != 0) {
			printk("keyword_spotting: kws_invoke failed\n");
			return 0;
		}
		cycles = k_cycle_get_32() - start;
		scores = kws_output(0);
		for (int c = 0; c < KWS_OUTPUT0_SIZE; ++c) {
			best = scores[c] > scores[best] ? c : best;
			equal += scores[c] == vectors_kws_expected[v][c];
		}
		/* Softmax output: probability = (q + 128) / 256. */
		printk("input %d: class %d (%s), probability %d/256, reference class %d, "
		       "%d of %d scores equal the reference, %u cycles\n",
		       v, best, labels[best], scores[best] + 128, vectors_kws_class[v], equal, KWS_OUTPUT0_SIZE,
		       cycles);
		passed += best == vectors_kws_class[v] && equal == KWS_OUTPUT0_SIZE;
	}
	printk("keyword_spotting: %d of %d inputs match the reference interpreter\n", passed, VECTORS_KWS_COUNT);
	return 0;
}
