/*
 * Micro Relay's QEMU TCG plugin: executed Arm M-profile instructions by timing class, per measured region.
 *
 * Each translated block gets a histogram of its instructions' classes (from the disassembly QEMU gives the
 * plugin) and one execution callback. The callback adds the histogram while a region is open and, for a block
 * that ends in a conditional branch, tells taken from not taken by the block that runs next: the fall-through
 * address or another one. A region opens when the block at `begin=` runs and closes at the block at `end=`
 * (the bench runner's two empty marker functions, mrb_region_begin/_end); every closed region is written to
 * `out=` as one line of class counts, in the order of CLASS_NAMES, which bench/cycles/classes.py reads.
 *
 * Single loads directly after another single load or store in the same block are a class of their own
 * (the Cortex-M4 pipelines them); LDM/STM/PUSH/POP and VLDM/VSTM/VPUSH/VPOP add their register count to a
 * `registers` class. A block left other than by falling through (a branch taken, a POP or load or data
 * operation writing the PC) adds one `branch_taken`: the pipeline refill. Every class but branch_taken and
 * registers counts instructions, so their sum is the region's instruction count.
 * Only QEMU's plugin API (qemu-plugin.h) is used; QEMU must be the one whose header this was built with.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum insn_class {
    C_ALU,            /* data processing, moves, compares, saturation, packing, DSP SIMD, IT, NOP */
    C_MUL,            /* 32- and 64-bit multiplies and multiply-accumulates, DSP MACs */
    C_DIV,            /* SDIV, UDIV */
    C_LOAD,           /* single load not directly after another single load or store */
    C_LOAD_PIPELINED, /* single load directly after a single load or store */
    C_STORE,          /* single store */
    C_LOAD_STORE_DOUBLE, /* LDRD, STRD */
    C_MULTIPLE,       /* LDM, STM, PUSH, POP */
    C_BRANCH,         /* B, BL, BX, BLX, CBZ, CBNZ, TBB, TBH */
    C_BRANCH_TAKEN,   /* blocks left other than by falling through: a branch taken, a write to the PC */
    C_FP,             /* VADD, VSUB, VMUL, VNEG, VABS, VCVT, VCMP, VMOV, VMRS, VMSR, ... */
    C_FP_MAC,         /* VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA, VFNMS */
    C_FP_DIV,         /* VDIV, VSQRT */
    C_FP_LOAD_STORE,  /* VLDR, VSTR */
    C_FP_MULTIPLE,    /* VLDM, VSTM, VPUSH, VPOP */
    C_REGISTERS,      /* registers moved by the MULTIPLE and FP_MULTIPLE instructions */
    C_BARRIER,        /* DSB, DMB, ISB */
    C_COUNT
};

static const char *const CLASS_NAMES[C_COUNT] = {
    "alu", "mul", "div", "load", "load_pipelined", "store", "load_store_double", "multiple", "branch",
    "branch_taken", "fp", "fp_mac", "fp_div", "fp_load_store", "fp_multiple", "registers", "barrier",
};

typedef struct {
    uint64_t counts[C_COUNT];
    uint64_t start;        /* address of the first instruction */
    uint64_t fallthrough;  /* address after the last instruction */
    int ends_in_branch;    /* the last instruction may leave the block other than by falling through */
} block;

static uint64_t region_begin, region_end;
static FILE *out;
static int open_region;
static uint64_t totals[C_COUNT];
static const block *previous;
static unsigned regions;

static int starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

static int any_prefix(const char *mnemonic, const char *const *prefixes)
{
    for (; *prefixes; ++prefixes) {
        if (starts_with(mnemonic, *prefixes)) {
            return 1;
        }
    }
    return 0;
}

/* Words moved by the first {...} register list of the operands: r0, lr and s5 are one each, d3 two. */
static unsigned list_words(const char *operands)
{
    const char *p = strchr(operands, '{');
    unsigned words = 0;
    if (!p) {
        return 1;
    }
    for (++p; *p && *p != '}';) {
        if (*p == ' ' || *p == ',') {
            ++p;
        } else if (*p == 'd' && isdigit((unsigned char)p[1])) {
            words += 2;
            p += 2;
        } else if (isalpha((unsigned char)*p)) {
            words += 1;
            while (isalnum((unsigned char)*p)) {
                ++p;
            }
        } else {
            ++p;
        }
    }
    return words ? words : 1;
}

static int writes_pc(const char *operands)
{
    return starts_with(operands, "pc,") || strstr(operands, "pc}") != NULL || strstr(operands, ", pc}") != NULL;
}

/* The class of one instruction from its disassembly ("ldr.w r2, [r3, #4]"); adds registers to *regs. */
static enum insn_class classify(const char *text, unsigned *regs, int *branch)
{
    static const char *const mul[] = {"mul", "mla", "mls", "smul", "umul", "smla", "umla", "smls", "smmul", "smmla",
                                      "smmls", "smuad", "smusd", "smlad", "smlsd", "umaal", NULL};
    static const char *const fp_mac[] = {"vmla", "vmls", "vnmla", "vnmls", "vfma", "vfms", "vfnma", "vfnms", NULL};
    char mnemonic[16];
    const char *operands;
    size_t n = 0;
    while (text[n] && text[n] != ' ' && n + 1 < sizeof mnemonic) {
        mnemonic[n] = text[n];
        ++n;
    }
    mnemonic[n] = '\0';
    operands = text + n;
    while (*operands == ' ') {
        ++operands;
    }
    *regs = 0;
    *branch = 0;
    if (mnemonic[0] == 'v') {
        if (any_prefix(mnemonic, fp_mac)) {
            return C_FP_MAC;
        }
        if (starts_with(mnemonic, "vdiv") || starts_with(mnemonic, "vsqrt")) {
            return C_FP_DIV;
        }
        if (starts_with(mnemonic, "vldm") || starts_with(mnemonic, "vstm") || starts_with(mnemonic, "vpush") ||
            starts_with(mnemonic, "vpop")) {
            *regs = list_words(operands);
            return C_FP_MULTIPLE;
        }
        if (starts_with(mnemonic, "vldr") || starts_with(mnemonic, "vstr")) {
            return C_FP_LOAD_STORE;
        }
        return C_FP;
    }
    if (strcmp(mnemonic, "bic") == 0 || starts_with(mnemonic, "bics") || starts_with(mnemonic, "bfi") ||
        starts_with(mnemonic, "bfc") || starts_with(mnemonic, "bkpt")) {
        return C_ALU;
    }
    if (mnemonic[0] == 'b' || starts_with(mnemonic, "cbz") || starts_with(mnemonic, "cbnz") ||
        starts_with(mnemonic, "tbb") || starts_with(mnemonic, "tbh")) {
        *branch = 1;
        return C_BRANCH;
    }
    if (starts_with(mnemonic, "ldm") || starts_with(mnemonic, "stm") || starts_with(mnemonic, "push") ||
        starts_with(mnemonic, "pop")) {
        *regs = list_words(operands);
        *branch = strstr(operands, "pc") != NULL;
        return C_MULTIPLE;
    }
    if (starts_with(mnemonic, "ldrd") || starts_with(mnemonic, "strd") || starts_with(mnemonic, "ldrexd") ||
        starts_with(mnemonic, "strexd")) {
        return C_LOAD_STORE_DOUBLE;
    }
    if (starts_with(mnemonic, "ldr") || starts_with(mnemonic, "lda")) {
        *branch = writes_pc(operands);
        return C_LOAD;
    }
    if (starts_with(mnemonic, "str") || starts_with(mnemonic, "stl")) {
        return C_STORE;
    }
    if (starts_with(mnemonic, "sdiv") || starts_with(mnemonic, "udiv")) {
        return C_DIV;
    }
    if (any_prefix(mnemonic, mul)) {
        return C_MUL;
    }
    if (starts_with(mnemonic, "dsb") || starts_with(mnemonic, "dmb") || starts_with(mnemonic, "isb")) {
        return C_BARRIER;
    }
    *branch = writes_pc(operands);
    return C_ALU;
}

static void write_region(void)
{
    int i;
    fprintf(out, "region");
    for (i = 0; i < C_COUNT; ++i) {
        fprintf(out, " %" PRIu64, totals[i]);
    }
    fprintf(out, "\n");
    memset(totals, 0, sizeof totals);
    ++regions;
}

static void block_entered(unsigned int vcpu, void *udata)
{
    const block *b = udata;
    int i;
    (void)vcpu;
    if (open_region && previous && previous->ends_in_branch && b->start != previous->fallthrough) {
        totals[C_BRANCH_TAKEN] += 1;
    }
    if (b->start == region_begin) {
        open_region = 1;
        memset(totals, 0, sizeof totals);
    } else if (b->start == region_end && open_region) {
        open_region = 0;
        write_region();
    }
    if (open_region) {
        for (i = 0; i < C_COUNT; ++i) {
            totals[i] += b->counts[i];
        }
    }
    previous = b;
}

static void block_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    const size_t n = qemu_plugin_tb_n_insns(tb);
    block *b = calloc(1, sizeof *b); /* lives as long as QEMU may run the block: never freed */
    enum insn_class last = C_ALU;
    size_t i;
    (void)id;
    if (!b) {
        return;
    }
    b->start = qemu_plugin_tb_vaddr(tb);
    for (i = 0; i < n; ++i) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        char *text = qemu_plugin_insn_disas(insn);
        unsigned regs;
        int branch;
        enum insn_class c = classify(text ? text : "", &regs, &branch);
        free(text);
        if (c == C_LOAD && i > 0 && (last == C_LOAD || last == C_LOAD_PIPELINED || last == C_STORE)) {
            c = C_LOAD_PIPELINED;
        }
        b->counts[c] += 1;
        b->counts[C_REGISTERS] += regs;
        b->ends_in_branch = branch && i + 1 == n;
        b->fallthrough = qemu_plugin_insn_vaddr(insn) + qemu_plugin_insn_size(insn);
        last = c;
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb, block_entered, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void finished(qemu_plugin_id_t id, void *p)
{
    int i;
    (void)id;
    (void)p;
    fprintf(out, "classes");
    for (i = 0; i < C_COUNT; ++i) {
        fprintf(out, " %s", CLASS_NAMES[i]);
    }
    fprintf(out, "\nregions %u\n", regions);
    fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    const char *path = NULL;
    int i;
    (void)info;
    for (i = 0; i < argc; ++i) {
        if (starts_with(argv[i], "begin=")) {
            region_begin = strtoull(argv[i] + 6, NULL, 0);
        } else if (starts_with(argv[i], "end=")) {
            region_end = strtoull(argv[i] + 4, NULL, 0);
        } else if (starts_with(argv[i], "out=")) {
            path = argv[i] + 4;
        }
    }
    if (!path || !region_begin || !region_end || !(out = fopen(path, "w"))) {
        fprintf(stderr, "insn_classes: needs begin=ADDR,end=ADDR,out=FILE\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, block_translated);
    qemu_plugin_register_atexit_cb(id, finished, NULL);
    return 0;
}
