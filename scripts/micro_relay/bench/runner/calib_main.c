/*
 * Micro Relay bench runner, calibration build: times spin loops of known instruction count with the same
 * mrb_measure() the model runner uses, so the host can check the conversion to instructions.
 */
#include <stdint.h>

#include "semihost.h"
#include "timer.h"

static volatile uint32_t loop_iterations;

/* Exactly 4 instructions per iteration (nop, nop, subs, bne); n must be at least 1. */
__attribute__((noinline)) static void spin(uint32_t n)
{
    __asm__ volatile("1:\n\t"
                     "nop\n\t"
                     "nop\n\t"
                     "subs %0, %0, #1\n\t"
                     "bne 1b\n\t"
                     : "+r"(n)
                     :
                     : "cc");
}

static int empty(void)
{
    return 0;
}

static int loop(void)
{
    spin(loop_iterations);
    return 0;
}

static void report(uint32_t n, const mrb_sample *sample)
{
    mrb_put_hex("mr-bench: loop", n);
    mrb_put_hex("mr-bench: ticks", sample->ticks);
    mrb_put_hex("mr-bench: spins", sample->spins);
}

/* The short ones land the loop's end at many phases of the tick; the long ones test the scale. */
static const uint32_t iterations[] = {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u,
                                     1000u, 12345u, 100000u, 1000000u, 10000000u};

int main(void)
{
    unsigned i;
    mrb_sample sample;
    mrb_timer_start();
    mrb_measure(empty, &sample);
    report(0u, &sample); /* n = 0: the empty call */
    for (i = 0; i < sizeof iterations / sizeof iterations[0]; ++i) {
        loop_iterations = iterations[i];
        mrb_measure(loop, &sample);
        report(iterations[i], &sample);
    }
    mrb_puts("mr-bench: done\n");
    return 0;
}
