"""Every op runs somewhere, and the op/kernel split stays split: ops hold meaning only (attributes, infer,
prepare, reference, macs); how a core runs one (the C call, sources, scratch, overlap) is its kernels'."""

from __future__ import annotations

import pytest

from conftest import ROOT
from micro_relay.ir.registry import OpDef, all_ops
from micro_relay.ir.types import DType
from micro_relay.kernels.registry import kernels_for

OPS = sorted(all_ops())
# the hooks OpDef had before kernels/: each of them now belongs to a Kernel (kernels/base.py)
KERNEL_HOOKS = {"emit", "scratch_bytes", "overlap_delta", "kernels", "kernel_sources"}


@pytest.mark.parametrize("op", OPS)
def test_every_op_has_a_portable_kernel(op):
    (portable,) = kernels_for(op, ("portable",))
    assert (portable.op, portable.backend) == (op, "portable")


@pytest.mark.parametrize("op", OPS)
def test_portable_sources_are_runtime_files(op):
    """A portable kernel's sources are crt/src/mr_<stem>.c files; the first also names the header included."""
    (portable,) = kernels_for(op, ("portable",))
    for stem in portable.sources:
        assert (ROOT / "crt" / "src" / f"mr_{stem}.c").is_file(), stem
    if portable.sources:
        assert (ROOT / "crt" / "include" / "micro_relay" / f"{portable.sources[0]}.h").is_file()


@pytest.mark.parametrize("op", OPS)
def test_no_op_defines_kernel_hooks(op):
    """Neither the op's class nor any of its bases (OpDef included) defines a kernel's hook."""
    cls = type(all_ops()[op])
    assert issubclass(cls, OpDef)
    for base in cls.__mro__:
        assert not KERNEL_HOOKS & set(vars(base)), f"{base.__qualname__} defines {KERNEL_HOOKS & set(vars(base))}"


@pytest.mark.parametrize("op", OPS)
def test_every_op_declares_its_dtypes(op):
    """`micro-relay ops` lists each op's element types: an op without them would be listed as running none."""
    dtypes = all_ops()[op].dtypes
    assert dtypes and all(isinstance(d, DType) for d in dtypes), dtypes
