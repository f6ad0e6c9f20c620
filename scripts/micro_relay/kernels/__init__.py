"""Kernels: how a core runs an op. ops/ say what an op means; a kernel says how one backend computes it.

One folder per backend, one file per op:
- portable/: the C99 kernels of crt/src, for every op and every target;
- arm_dsp/: the Armv7E-M DSP-extension paths (SMLAD over windows gathered into arena scratch), for targets
  with `dsp` (target/), overriding the portable kernel of the same op;
- cmsis_nn/: Arm's CMSIS-NN through the adapters of crt/cmsis_nn, when `--kernels cmsis-nn` asks for it.
lower/ picks, per node, the first kernel of the op that accepts it (kernels/registry.py kernels_for).
"""
