"""The kernel interface: what a kernel owns for the nodes it runs.

A kernel is chosen per node by lower/ from the node, its op's prepared constants (OpDef.prepare: the
arithmetic, shared with the reference interpreter) and the target. It owns everything that depends on how the
code runs rather than on what it computes:
- `refusal`: why it cannot run this node bit-exactly on this target (None: it can);
- `plan`: its typed decisions for the node (a KernelPlan: scratch bytes, the in-place overlap its access order
  allows, the runtime function and sources it calls), computed once per node and read by the planner, the
  room search, the emitter and the report;
- `variants`: options that make it faster with more scratch (room/: plan/room.py applies the first that fits);
- `estimate`: the target's cost model's instructions, where it has one;
- `report`: the loop structure it takes, for the plan report;
- `emit`: the C statement that calls it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class KernelPlan:
    """A kernel's decisions for one node. Kernels with more (tiles, strips) subclass it with typed fields."""

    scratch_bytes: int = 0  # arena scratch the kernel needs while it runs, planned like a tensor live at its step
    # lagged in-place: the largest offset(output) - offset(input 0) at which the kernel's writes never reach input
    # bytes it still has to read (kernels/overlap.py); None: output and input 0 are kept apart unless the op is inplace
    overlap_delta: int | None = None
    entry: str = ""  # the runtime function called, where variants of one op call different ones ("" otherwise)
    sources: tuple[str, ...] = ()  # runtime sources crt/src/mr_<stem>.c; the first also names the header
    adapters: tuple[str, ...] = ()  # CMSIS-NN adapter sources crt/cmsis_nn/mr_cmsis_<stem>.c
    # (output index, input index) pairs the kernel computes correctly when that output is that input's buffer:
    # an op updating a state (SVDF) writes its new state over the old one, and plan/state.py drops the assign copy
    inplace_outputs: tuple[tuple[int, int], ...] = ()


class Kernel:
    """Base of every kernel; `op` is the op it runs, `backend` its folder (portable, arm_dsp, cmsis_nn)."""

    op: ClassVar[str] = ""
    backend: ClassVar[str] = ""
    sources: ClassVar[tuple[str, ...]] = ()  # runtime sources it calls (KernelPlan.sources), unless plan says more
    # option name -> default: what `variants` may set (room) and `plan` reads; not attributes of the node
    options: ClassVar[dict[str, object]] = {}

    def refusal(self, target, graph, node, params: dict) -> str | None:
        return None

    def plan(self, target, graph, node, params: dict, options: dict) -> KernelPlan:
        return KernelPlan(sources=self.sources)

    def variants(self, target, graph, node, params: dict, plan: KernelPlan) -> tuple[dict, ...]:
        """Option sets that make this node faster with more arena scratch, fastest first (empty: one way only)."""
        return ()

    def estimate(self, target, graph, node, params: dict, plan: KernelPlan) -> dict | None:
        """The cost model's instructions: {"instructions", "path", and "alternatives" where paths were weighed}."""
        return None

    def report(self, graph, node, params: dict, plan: KernelPlan) -> str:
        """The loop structure this kernel takes for the node's constant shapes ("": one simple loop)."""
        return ""

    def emit(self, ctx, node, params: dict, plan: KernelPlan) -> str:
        raise NotImplementedError
