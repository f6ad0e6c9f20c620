/*
 * Micro Relay bench runner, model build: reads the input tensors from the host file input.bin, measures
 * an empty call (the timing constant) and MRB_RUNS invokes, refilling the inputs before each since an
 * invoke may overwrite them, writes each run's outputs to output.bin and reports the samples and the
 * stack high-water mark on the semihosting console.
 * mrb_model.h is generated per model: it includes NAME.h and maps the mrb_* names onto NAME_*.
 * With MRB_PROFILE the generated invoke calls mrb_profile_mark(node) before each layer (and with -1 at
 * its end), and the marks of the last run are reported.
 * The model's arena is defined here (its sources are built with NAME_EXTERNAL_ARENA) and painted before the
 * first run, so a kernel that reads scratch or activations it never wrote gives wrong outputs here instead
 * of passing on the zeroed memory a fresh static array holds.
 */
#include <stdint.h>

#include "mrb_model.h"
#include "semihost.h"
#include "timer.h"

#ifndef MRB_RUNS
#define MRB_RUNS 3
#endif

#define STACK_PAINT 0x5AA5C33Cu
#define ARENA_PAINT 0xA5u

uint8_t mrb_arena[MRB_ARENA_SIZE > 0 ? MRB_ARENA_SIZE : 1] __attribute__((aligned(16)));

extern uint32_t __stack_limit[], __stack_top[];

#ifdef MRB_PROFILE
#define MAX_MARKS 1024
static int32_t mark_node[MAX_MARKS];
static uint64_t mark_ticks[MAX_MARKS];
static unsigned marks;

void mrb_profile_mark(int node);

void mrb_profile_mark(int node)
{
    if (marks < MAX_MARKS) {
        mark_ticks[marks] = mrb_timer_ticks();
        mark_node[marks++] = node;
    }
}

static void report_marks(void)
{
    unsigned i;
    for (i = 0; i < marks; ++i) {
        mrb_put_hex("mr-bench: mark", (uint32_t)mark_node[i]);
        mrb_put_hex("mr-bench: at", mark_ticks[i]);
    }
}
#endif

static int empty(void)
{
    return 0;
}

static int fail(const char *message)
{
    mrb_puts(message);
    return 1;
}

static void report(const char *what, const mrb_sample *sample)
{
    mrb_puts(what);
    mrb_put_hex("mr-bench: ticks", sample->ticks);
    mrb_put_hex("mr-bench: spins", sample->spins);
}

/* Fill the unused stack below the current frame, so the deepest overwritten word shows the peak use. */
static void paint_stack(void)
{
    uint32_t *word, *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (word = __stack_limit; word < sp - 16; ++word) {
        *(volatile uint32_t *)word = STACK_PAINT;
    }
}

static uint32_t stack_used(void)
{
    const uint32_t *word = __stack_limit;
    while (word < __stack_top && *word == STACK_PAINT) {
        ++word;
    }
    return (uint32_t)((uintptr_t)__stack_top - (uintptr_t)word);
}

int main(void)
{
    int run, i, status;
    mrb_sample sample;
    const int in = mrb_open("input.bin", MRB_OPEN_RB);
    const int out = mrb_open("output.bin", MRB_OPEN_WB);
    if (in < 0 || out < 0) {
        return fail("mr-bench: cannot open input.bin or output.bin\n");
    }
    for (i = 0; i < (int)sizeof mrb_arena; ++i) {
        mrb_arena[i] = ARENA_PAINT;
    }
    mrb_timer_start();
    paint_stack();
    mrb_measure(empty, &sample);
    report("mr-bench: empty\n", &sample);
    for (run = 0; run < MRB_RUNS; ++run) {
        mrb_seek(in, 0);
        for (i = 0; i < MRB_NUM_INPUTS; ++i) {
            if (mrb_read(in, mrb_input(i), mrb_input_size(i)) != 0) {
                return fail("mr-bench: short input.bin\n");
            }
        }
#ifdef MRB_PROFILE
        marks = 0;
#endif
        status = mrb_measure(mrb_invoke, &sample);
        if (status != 0) {
            mrb_put_hex("mr-bench: invoke failed with", (uint32_t)status);
            return 1;
        }
        report("mr-bench: invoke\n", &sample);
        for (i = 0; i < MRB_NUM_OUTPUTS; ++i) {
            if (mrb_write(out, mrb_output(i), mrb_output_size(i)) != 0) {
                return fail("mr-bench: cannot write output.bin\n");
            }
        }
    }
#ifdef MRB_PROFILE
    report_marks();
#endif
    mrb_put_hex("mr-bench: stack", stack_used());
    mrb_close(in);
    mrb_close(out);
    mrb_puts("mr-bench: done\n");
    return 0;
}
