/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * A model in a user-mode thread: the arena is in micro_relay_partition (CONFIG_MICRO_RELAY_USER_PARTITION),
 * and the thread's memory domain holds that partition and nothing else, so the only RAM it can write is
 * the arena (and its own stack). It computes the reference interpreter's outputs there and checks its
 * weights in flash. The wild_write scenario shows a write outside the partition faulting on the MPU, the
 * kernel's memory unchanged and the system still running.
 */

#include <stdint.h>
#include <string.h>

#include <zephyr/app_memory/app_memdomain.h>
#include <zephyr/kernel.h>
#include <zephyr/ztest.h>
#include <zephyr/ztest_error_hook.h>

#include <micro_relay_partition.h>

#include "kws.h"
#include "kws_vectors.h"

/* What the user thread found, written by it: in the partition, since it may write nothing else. */
struct user_results {
	int user_mode;
	int verify;
	int invoke[VECTORS_KWS_COUNT];
	int equal[VECTORS_KWS_COUNT];
};
K_APP_BMEM(micro_relay_partition) static struct user_results results;

/* A kernel variable: no user-mode thread may write it. */
volatile uint32_t kernel_victim = 0x600dU;
/* The fatal error of the user thread (-1: none), written by the error hook in supervisor mode. */
static volatile int user_fault = -1;

static struct k_mem_domain model_domain;
static struct k_thread user_thread;
K_THREAD_STACK_DEFINE(user_stack, 2048);

void ztest_post_fatal_error_hook(unsigned int reason, const struct arch_esf *esf)
{
	ARG_UNUSED(esf);
	user_fault = (int)reason;
}

static void run_model(void *p1, void *p2, void *p3)
{
	ARG_UNUSED(p1);
	ARG_UNUSED(p2);
	ARG_UNUSED(p3);
	results.user_mode = k_is_user_context();
	results.verify = kws_verify();
#if defined(MICRO_RELAY_TEST_WILD_WRITE)
	ztest_set_fault_valid(true); /* the fault below is this test's point */
#endif
	for (int k = 0; k < VECTORS_KWS_COUNT; ++k) {
		memcpy(kws_input(0), vectors_kws_input[k], KWS_INPUT0_BYTES);
		results.invoke[k] = kws_invoke();
		results.equal[k] = memcmp(kws_output(0), vectors_kws_expected[k], KWS_OUTPUT0_BYTES) == 0;
	}
}

/* Run run_model in a user-mode thread of model_domain, and wait for it to end. */
static void run_in_user_mode(void)
{
	k_tid_t tid = k_thread_create(&user_thread, user_stack, K_THREAD_STACK_SIZEOF(user_stack), run_model, NULL,
				      NULL, NULL, K_PRIO_PREEMPT(1), K_USER, K_FOREVER);

	memset(&results, 0, sizeof(results));
	for (int k = 0; k < VECTORS_KWS_COUNT; ++k) {
		results.invoke[k] = -1; /* until kws_invoke returns */
	}
	zassert_ok(k_mem_domain_add_thread(&model_domain, tid));
	k_thread_start(tid);
	zassert_ok(k_thread_join(tid, K_SECONDS(30)));
}

static void *setup(void)
{
	struct k_mem_partition *parts[] = {&micro_relay_partition};

	zassert_ok(k_mem_domain_init(&model_domain, ARRAY_SIZE(parts), parts));
	return NULL;
}

ZTEST(micro_relay_userspace, test_1_the_arena_is_in_the_partition)
{
	const uintptr_t start = micro_relay_partition.start;
	const uintptr_t end = start + micro_relay_partition.size;
	const uintptr_t input = (uintptr_t)kws_input(0), output = (uintptr_t)kws_output(0);

	printk("micro_relay_partition: %u B at 0x%08lx for an arena of %u B\n",
	       (unsigned int)micro_relay_partition.size, (unsigned long)start, (unsigned int)KWS_ARENA_SIZE);
	zassert_true(micro_relay_partition.size >= KWS_ARENA_SIZE);
	zassert_true(input >= start && input + KWS_INPUT0_BYTES <= end, "the input is outside the partition");
	zassert_true(output >= start && output + KWS_OUTPUT0_BYTES <= end, "the output is outside the partition");
#if defined(CONFIG_MPU_REQUIRES_POWER_OF_TWO_ALIGNMENT)
	/* ARMv7-M: the region is a power of two, aligned to its size */
	zassert_equal(micro_relay_partition.size & (micro_relay_partition.size - 1U), 0U);
	zassert_equal(start % micro_relay_partition.size, 0U);
#endif
}

#if !defined(MICRO_RELAY_TEST_WILD_WRITE)

ZTEST(micro_relay_userspace, test_2_the_model_runs_in_user_mode)
{
	run_in_user_mode();
	zassert_equal(user_fault, -1, "the user thread faulted (%d)", user_fault);
	zassert_true(results.user_mode, "the thread did not run in user mode");
	zassert_equal(results.verify, 0, "the weights in flash differ from their CRC");
	for (int k = 0; k < VECTORS_KWS_COUNT; ++k) {
		zassert_equal(results.invoke[k], 0, "kws_invoke returned %d", results.invoke[k]);
		zassert_true(results.equal[k], "kws vector %d differs from the reference interpreter", k);
	}
}

#else

ZTEST(micro_relay_userspace, test_2_a_write_outside_the_partition_faults_and_the_system_runs_on)
{
	run_in_user_mode();
	printk("wild write: fatal error %d, kernel_victim 0x%x\n", user_fault, (unsigned int)kernel_victim);
	zassert_equal(user_fault, K_ERR_CPU_EXCEPTION, "no MPU fault was caught");
	zassert_equal(kernel_victim, 0x600dU, "the wild write landed");
	zassert_true(results.user_mode && results.verify == 0, "the thread did not get to the model");
	zassert_equal(results.invoke[0], -1, "kws_invoke returned: the fault did not stop the run at the wild write");
}

#endif

ZTEST_SUITE(micro_relay_userspace, NULL, setup, NULL, NULL, NULL);
