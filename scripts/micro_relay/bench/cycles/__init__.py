"""A cycle estimate next to the instruction count: a QEMU plugin counts the executed instructions of each
measured region by timing class (insn_classes.c, plugin.py), and a per-core table turns the classes into
cycles (timing.py). QEMU itself only counts instructions; this is the step from there to cycles."""
