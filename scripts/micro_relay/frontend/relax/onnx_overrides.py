"""ONNX converters of apache-tvm's importer replaced, for the length of one import.

The importer writes Pad (every mode), Tile and opset-1..10 Clip (bounds as attributes) as opaque TIR
functions, whose amounts and bounds the lowering cannot read, has no opset-1..9 Slice (bounds as attributes)
at all, and wraps Gather's negative positions with int64 arithmetic on the positions. Here they become the
Relax operators the PyTorch importer also emits and the converters take: relax.nn.pad with its mode
('constant', 'reflect', 'replicate'), relax.tile, relax.clip with constant bounds, relax.strided_slice and
relax.take (whose converter counts negative positions from the end, as ONNX does).
"""

from __future__ import annotations

import contextlib

_PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate"}


def _classes():
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.relax.frontend.onnx import onnx_frontend as frontend

    def pad(bb, data, before, after, mode: str, value: float):
        if mode not in _PAD_MODES:
            raise ValueError(f"Pad mode '{mode}' is not supported (constant, reflect, edge)")
        width = [int(v) for pair in zip(before, after) for v in pair]
        return bb.emit(relax.op.nn.pad(data, width, _PAD_MODES[mode], float(value)))

    class Pad(frontend.Pad):
        @classmethod
        def _impl_v2(cls, bb, inputs, attr, params):
            pads = [int(p) for p in attr.get("pads", ())]
            half = len(pads) // 2
            return pad(bb, inputs[0], pads[:half], pads[half:], attr.get("mode", b"constant").decode("utf-8"),
                       attr.get("value", 0.0) or 0.0)

        @classmethod
        def _lower_pad(cls, bb, inputs, attr, params, allowed_modes):
            before, after, value = cls._parse_pads_and_axes(inputs, params)
            return pad(bb, inputs[0], before, after, attr.get("mode", b"constant").decode("utf-8"), value)

    class Clip(frontend.Clip):
        @classmethod
        def _impl_v1(cls, bb, inputs, attr, params):
            low, high = float(attr.get("min", -np.inf)), float(attr.get("max", np.inf))
            return bb.emit(relax.op.clip(inputs[0], low, high))

    class Slice(frontend.Slice):
        @classmethod
        def _impl_v1(cls, bb, inputs, attr, params):
            starts, ends = list(attr.get("starts", ())), list(attr.get("ends", ()))
            axes = list(attr.get("axes", range(len(starts))))
            if not len(starts) == len(ends) == len(axes):
                raise ValueError(f"Slice has {len(starts)} starts, {len(ends)} ends and {len(axes)} axes")
            rank = len(inputs[0].ty.shape)
            axes = [int(a) + rank if int(a) < 0 else int(a) for a in axes]
            limit = np.iinfo(np.int32).max  # exporters write INT64_MAX for "to the end"
            ends = [max(min(int(e), limit), -limit) for e in ends]
            starts = [max(min(int(s), limit), -limit) for s in starts]
            return bb.emit(relax.op.strided_slice(inputs[0], axes, starts, ends))

    class Tile(frontend.Tile):
        @classmethod
        def _impl_v13(cls, bb, inputs, attr, params):
            reps = frontend.get_constant(inputs[1], params)
            if not isinstance(reps, tvm.ir.GenericConst):
                return super()._impl_v13(bb, inputs, attr, params)
            return bb.emit(relax.op.tile(inputs[0], [int(r) for r in reps.value.numpy().reshape(-1)]))

    class Gather(frontend.Gather):
        @classmethod
        def _impl_v1(cls, bb, inputs, attr, params):
            return bb.emit(relax.op.take(inputs[0], inputs[1], axis=int(attr.get("axis", 0))))

        @classmethod
        def _impl_v13(cls, bb, inputs, attr, params):
            return cls._impl_v1(bb, inputs, attr, params)

    return frontend, {"Pad": Pad, "Clip": Clip, "Slice": Slice, "Tile": Tile, "Gather": Gather}


@contextlib.contextmanager
def converters_replaced():
    """tvm's converter table with the converters above replaced inside the block."""
    frontend, replaced = _classes()
    original = frontend._get_convert_map
    frontend._get_convert_map = lambda: {**original(), **replaced}
    try:
        yield
    finally:
        frontend._get_convert_map = original
