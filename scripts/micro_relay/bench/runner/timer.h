/*
 * Micro Relay bench runner: instruction-exact timing with SysTick on the processor clock.
 *
 * Under QEMU with `-icount shift=0` every guest instruction advances virtual time by 1 ns, so one tick of
 * a clock at F Hz stands for 1e9 / F instructions (40 at 25 MHz). Ticks alone would leave a 40-instruction
 * uncertainty, so mrb_measure() starts right after a tick edge and, after the measured call, counts
 * 4-instruction spins until the next edge: the call took ticks * (1e9 / F) - 4 * spins instructions plus
 * a constant, and the host removes the constant by measuring an empty function the same way.
 * SysTick is 24 bits wide; its handler counts wraps so measurements may be longer than 2^24 ticks.
 */
#ifndef MRB_TIMER_H
#define MRB_TIMER_H

#include <stdint.h>

typedef struct {
    uint64_t ticks;  /* tick edges from the start edge to the first edge after the call */
    uint32_t spins;  /* 4-instruction spins from the end of the call to that edge */
} mrb_sample;

void mrb_timer_start(void);
/* Ticks since mrb_timer_start(): one tick of resolution, for per-layer profiles. */
uint64_t mrb_timer_ticks(void);
int mrb_measure(int (*fn)(void), mrb_sample *sample);
void mrb_systick_handler(void);
void mrb_region_begin(void);
void mrb_region_end(void);

#endif
