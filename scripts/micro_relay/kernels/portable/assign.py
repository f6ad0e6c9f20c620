"""assign on no runtime kernel: an inline byte copy of the value into the state's storage (both planned
apart: the state is never in the arena), or nothing when the value's producer wrote it there in place."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


def byte_copy(source: str, dest: str, nbytes: int) -> str:
    """A C block copying `nbytes` from pointer expression `source` to `dest` (no libc: the model's C calls none)."""
    return (f"{{ size_t i; const uint8_t *src = (const uint8_t *){source}; uint8_t *dst = (uint8_t *){dest}; "
            f"for (i = 0; i < {nbytes}u; ++i) {{ dst[i] = src[i]; }} }}")


@kernel
class PortableAssign(Kernel):
    op = "assign"
    backend = "portable"

    def emit(self, ctx, node, p, plan):
        state, value = node.inputs
        if ctx.graph.tensors[value].stored_in == state:  # its producer wrote the state in place (plan/state.py)
            return ""
        return byte_copy(ctx.tensor(value), ctx.tensor(state), ctx.graph.type_of(state).nbytes)
