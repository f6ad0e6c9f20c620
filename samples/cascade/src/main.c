/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * cascade: a small wake-word model (wake: 2 classes, "no" and "wake") gates a larger keyword model (kws:
 * 12 classes). Both are members of the arena group "audio" (micro_relay_model ARENA_GROUP): they share
 * one arena, sized to the larger, since kws only runs after wake is done.
 *
 * The shared arena has one rule: a model's outputs last until the next run of any model of the group.
 * So wake's scores are read before kws runs. Every score is compared with the numpy reference interpreter's,
 * computed at build time (wake_vectors.h, kws_vectors.h).
 */

#include <stdint.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "audio_arena.h"
#include "kws.h"
#include "kws_vectors.h"
#include "wake.h"
#include "wake_vectors.h"

static const char *const labels[KWS_OUTPUT0_SIZE] = {
	"down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes", "silence", "unknown",
};

static int argmax(const int8_t *scores, int count, const int8_t *reference, int *equal)
{
	int best = 0;

	*equal = 0;
	for (int c = 0; c < count; ++c) {
		best = scores[c] > scores[best] ? c : best;
		*equal += scores[c] == reference[c];
	}
	return best;
}

int main(void)
{
	const unsigned int separate = WAKE_ARENA_SIZE + KWS_ARENA_SIZE;
	int passed = 0, opened = 0;

	printk("cascade: arena group audio %u B for wake (%u B) and kws (%u B), %u B less than separate arenas\n",
	       (unsigned int)AUDIO_ARENA_SIZE, (unsigned int)WAKE_ARENA_SIZE, (unsigned int)KWS_ARENA_SIZE,
	       separate - (unsigned int)AUDIO_ARENA_SIZE);
	printk("cascade: weights verified: wake %s, kws %s\n", wake_verify() == 0 ? "ok" : "DAMAGED",
	       kws_verify() == 0 ? "ok" : "DAMAGED");
	for (int v = 0; v < VECTORS_WAKE_COUNT; ++v) {
		int wake_equal, kws_equal, gate, best;

		memcpy(wake_input(0), vectors_wake_input[v], WAKE_INPUT0_BYTES);
		if (wake_invoke() != 0) {
			printk("cascade: wake_invoke failed\n");
			return 0;
		}
		/* read wake's scores now: kws's run overwrites the shared arena */
		gate = argmax(wake_output(0), WAKE_OUTPUT0_SIZE, vectors_wake_expected[v], &wake_equal);
		if (gate == 0) {
			printk("input %d: wake class 0, reference class %d, %d of %d scores equal the reference: "
			       "kws not run\n", v, vectors_wake_class[v], wake_equal, WAKE_OUTPUT0_SIZE);
			passed += vectors_wake_class[v] == 0 && wake_equal == WAKE_OUTPUT0_SIZE;
			continue;
		}
		++opened;
		memcpy(kws_input(0), vectors_kws_input[v], KWS_INPUT0_BYTES);
		if (kws_invoke() != 0) {
			printk("cascade: kws_invoke failed\n");
			return 0;
		}
		best = argmax(kws_output(0), KWS_OUTPUT0_SIZE, vectors_kws_expected[v], &kws_equal);
		printk("input %d: wake class 1, reference class %d, %d of %d scores equal the reference: "
		       "kws class %d (%s), reference class %d, %d of %d scores equal the reference\n",
		       v, vectors_wake_class[v], wake_equal, WAKE_OUTPUT0_SIZE, best, labels[best], vectors_kws_class[v],
		       kws_equal, KWS_OUTPUT0_SIZE);
		passed += vectors_wake_class[v] == 1 && wake_equal == WAKE_OUTPUT0_SIZE &&
			  best == vectors_kws_class[v] && kws_equal == KWS_OUTPUT0_SIZE;
	}
	printk("cascade: the gate opened for %d of %d inputs; %d of %d inputs match the reference interpreter\n",
	       opened, VECTORS_WAKE_COUNT, passed, VECTORS_WAKE_COUNT);
	return 0;
}
