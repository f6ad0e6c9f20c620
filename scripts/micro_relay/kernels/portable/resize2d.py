"""image.resize2d on the portable kernels (crt/src/mr_resize2d.c): the compile-time row and column tables
of ops/_resize.py as constant arrays."""

from __future__ import annotations

import numpy as np

from ..base import Kernel
from ..registry import kernel

SHAPE_FIELDS = ("batches", "in_h", "in_w", "channels", "out_h", "out_w")


@kernel
class PortableResize2d(Kernel):
    op = "image.resize2d"
    backend = "portable"
    sources = ("resize2d",)

    def emit(self, ctx, node, p, plan):
        fields = {k: p[k] for k in SHAPE_FIELDS}
        x, y = ctx.tensor(node.inputs[0]), ctx.tensor(node.outputs[0])

        def table(key, c_type="int32_t"):
            values = np.asarray(p[key], np.float32 if c_type == "float" else np.int32)
            return ctx.const_array(values, c_type)

        if p["method"] == "nearest_neighbor":
            fields.update(elem_size=p["elem_size"], rows=table("row_lo"), cols=table("col_lo"))
            return f"mr_resize_nearest({ctx.params('mr_resize_nearest_params', fields)}, {x}, {y});"
        for key in ("row_lo", "row_hi", "col_lo", "col_hi"):
            fields[key] = table(key)
        floats = p["kind"] == "f32"
        for axis in ("row", "col"):
            fields[f"{axis}_weight"] = "NULL" if floats else table(f"{axis}_weight")
        for axis in ("row", "col"):
            fields[f"{axis}_frac"] = table(f"{axis}_frac", "float") if floats else "NULL"
        return f"mr_resize_bilinear_{p['kind']}({ctx.params('mr_resize_bilinear_params', fields)}, {x}, {y});"
