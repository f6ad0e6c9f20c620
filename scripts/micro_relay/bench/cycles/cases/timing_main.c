/*
 * Micro Relay bench runner, cycle-model build: measures each case of timing_cases.S with 1 and with 101
 * iterations through mrb_measure(), so the QEMU plugin records one region per call (bench/cycles), in the
 * order of the table below after an empty call.
 */
#include <stdint.h>

#include "semihost.h"
#include "timer.h"

#define CASE(name) int mrc_##name##_1(void); int mrc_##name##_101(void);
CASE(alu) CASE(mul) CASE(load) CASE(load_pipelined) CASE(store) CASE(load_double) CASE(push_pop) CASE(branch)
CASE(fp) CASE(fp_divide)
#undef CASE

#define CASE(name) mrc_##name##_1, mrc_##name##_101,
static int (*const cases[])(void) = {
    CASE(alu) CASE(mul) CASE(load) CASE(load_pipelined) CASE(store) CASE(load_double) CASE(push_pop)
    CASE(branch) CASE(fp) CASE(fp_divide)
};
#undef CASE

static int empty(void)
{
    return 0;
}

int main(void)
{
    unsigned i;
    mrb_sample sample;
    mrb_timer_start();
    mrb_measure(empty, &sample);
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        mrb_measure(cases[i], &sample);
    }
    mrb_put_hex("mr-bench: cases", (uint32_t)(sizeof cases / sizeof cases[0]));
    mrb_puts("mr-bench: done\n");
    return 0;
}
