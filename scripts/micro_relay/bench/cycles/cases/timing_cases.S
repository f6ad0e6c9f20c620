/*
 * Instruction sequences whose Cortex-M4 cycle counts the Technical Reference Manual's timing table fixes,
 * for tests/bench/test_cycles.py. Each case is a loop of ITERATIONS runs of one body, built twice (1 and
 * 101 iterations: the difference is 100 bodies, the loop's subs and 100 taken branches). Every function takes
 * and returns nothing the C side uses; r4-r5 are saved by the push/pop case itself.
 */
    .syntax unified
    .thumb
    .text

    .macro case name, iterations
    .global mrc_\name\()_\iterations
    .type mrc_\name\()_\iterations, %function
    .thumb_func
    .align 2
mrc_\name\()_\iterations:
    sub sp, sp, #16
    movs r0, #\iterations
1:
    body_\name
    subs r0, r0, #1
    bne 1b
    add sp, sp, #16
    movs r0, #0
    bx lr
    .size mrc_\name\()_\iterations, . - mrc_\name\()_\iterations
    .endm

    .macro body_alu
    adds r1, r1, #1
    adds r1, r1, #1
    eors r2, r2, r1
    lsls r3, r1, #2
    .endm

    .macro body_mul
    mul r2, r2, r3
    mla r2, r2, r3, r2
    smull r2, r3, r1, r2
    smlal r2, r3, r1, r2
    smlad r2, r2, r3, r2
    .endm

    .macro body_load
    ldr r2, [sp]
    adds r1, r1, r2
    ldr r3, [sp, #4]
    adds r1, r1, r3
    .endm

    .macro body_load_pipelined
    ldr r2, [sp]
    ldr r3, [sp, #4]
    ldrb r12, [sp, #8]
    adds r1, r1, r2
    .endm

    .macro body_store
    str r1, [sp]
    adds r1, r1, #1
    strh r1, [sp, #4]
    .endm

    .macro body_load_double
    ldrd r2, r3, [sp]
    .endm

    .macro body_push_pop
    push {r4, r5}
    pop {r4, r5}
    .endm

    .macro body_branch
    b 2f
    nop            /* jumped over: a branch to the next address would look like a fall-through */
2:
    .endm

    .macro body_fp
    vadd.f32 s0, s0, s1
    vmul.f32 s2, s2, s3
    vmla.f32 s4, s5, s6
    vldr s7, [sp]
    .endm

    .macro body_fp_divide
    vdiv.f32 s4, s4, s5
    .endm

    .irp name, alu, mul, load, load_pipelined, store, load_double, push_pop, branch, fp, fp_divide
    case \name, 1
    case \name, 101
    .endr
