"""The target: which core the generated C runs on, an input of the compile like the model.

A target names the core's features that change what the compiler plans and emits:
- `dsp`: the Armv7E-M DSP extension (SMLAD, SXTB16, ...: Cortex-M4, M7, M33, M55). Kernels for it
  (kernels/arm_dsp/) gather windows into arena scratch, so the arena of a DSP target can be larger than a
  portable one, and faster; on any other target no DSP scratch is planned and the portable kernels run.
- `fpu`: single-precision hardware floating point (nothing depends on it yet; float kernels are portable C).
- `mve`: the M-profile vector extension (Helium, Cortex-M55); nothing uses it yet.
- `cost_model`: the instruction model the kernel choices weigh paths with (target/cost_model.py, fitted on
  Cortex-M4; the other DSP cores use it as the nearest measured model), or None where no choice needs one.

The default, `generic`, is portable C99 for any core or host: no DSP scratch, no DSP entry points. A build for
a DSP core compiled with `--target generic` is correct, only slower. `host` is the machine the compiler runs
on, portable like generic. `micro_relay_model()` in CMake derives the target from the board's Kconfig
(CONFIG_CPU_CORTEX_M4 and friends); `micro-relay bench` from the emulated board's core (target_for_core).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import CompileError


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    dsp: bool = False
    fpu: bool = False
    mve: bool = False
    cost_model: str | None = None


TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("generic", "portable C99 for any core: no DSP scratch, no DSP entry points"),
    Target("host", "the machine the compiler runs on (portable C)"),
    Target("cortex-m0plus", "Armv6-M, no DSP extension, no FPU"),
    Target("cortex-m3", "Armv7-M, no DSP extension, no FPU"),
    Target("cortex-m4", "Armv7E-M with the DSP extension (FPU on M4F)", dsp=True, fpu=True, cost_model="cortex-m4"),
    Target("cortex-m7", "Armv7E-M with the DSP extension and an FPU", dsp=True, fpu=True, cost_model="cortex-m4"),
    Target("cortex-m33", "Armv8-M mainline with the DSP extension and an FPU", dsp=True, fpu=True,
           cost_model="cortex-m4"),
    Target("cortex-m55", "Armv8.1-M with the DSP extension, an FPU and MVE (MVE kernels not yet written)",
           dsp=True, fpu=True, mve=True, cost_model="cortex-m4"),
)}

DEFAULT_TARGET = "generic"


def get_target(name: str | Target) -> Target:
    """The target of that name (a Target passes through); an unknown name is a CompileError naming the choices."""
    if isinstance(name, Target):
        return name
    target = TARGETS.get(name)
    if target is None:
        raise CompileError(f"unknown target '{name}' (choose from {', '.join(TARGETS)})", "--target")
    return target


def target_for_core(core: str) -> Target:
    """The target of a core name as boards and compilers spell it ("Cortex-M4F", "cortex-m33", "-mcpu=cortex-m7"):
    a core we do not know is `generic` (portable code is correct everywhere)."""
    name = core.lower().removeprefix("-mcpu=").replace("+", "plus").split("+")[0]
    name = name.rstrip("f") if name.startswith("cortex-m") and name.endswith("f") else name
    return TARGETS.get(name, TARGETS[DEFAULT_TARGET])
