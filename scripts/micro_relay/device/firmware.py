"""The model server's sources for one model: what a firmware links, whatever board it runs on.

An output folder the compiler would write (NAME.h, the runtime, NAME.plan.json) with NAME.c instrumented to
mark each layer (bench.build.instrument_invoke: the per-layer counts), and beside it the server
(server/mrs_server.c, .h) and mrs_model.h, the server's names for this model and its identity
(identity.server_header). A firmware adds a port: server/port_mps2.c for QEMU's MPS2 boards; on a board,
port_dwt.c (the DWT cycle counter, copied here too) and the board's UART (docs/device-protocol.md). The model
hash is the uninstrumented NAME.c's, as the host computes it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..bench.build import instrument_invoke
from ..compiler import write_output
from .identity import server_header

SERVER_DIR = Path(__file__).resolve().parent / "server"
SERVER_FILES = ("mrs_server.c", "mrs_server.h", "port_dwt.c")  # port_dwt.c: a board's counter, if it wants it


def write_server(model, out_dir: Path, model_defines: tuple[str, ...] = (), record: str | None = None) -> list[Path]:
    """Write the server's sources for `model` into out_dir (all or nothing, as compile does); returns the C
    files to build. `record`: the build folder's model_server.json (build_folder.server_record). Tests only:
    model_defines ("A=B") become #defines at the top of NAME.c alone, so a test can send one kernel call to a
    broken copy of the kernel; nothing else sets them."""
    name = model.name
    prelude = "".join(f"#define {d.partition('=')[0]} {d.partition('=')[2]}\n" for d in model_defines)
    files = dict(model.files)
    files[f"{name}.c"] = prelude + instrument_invoke(model.files[f"{name}.c"], name)
    files["mrs_model.h"] = server_header(model)
    for server_file in SERVER_FILES:
        files[server_file] = (SERVER_DIR / server_file).read_text()
    if record is not None:
        from .build_folder import RECORD

        files[RECORD] = record
    write_output(dataclasses.replace(model, files=files), out_dir)
    out_dir = Path(out_dir)
    return [out_dir / f"{name}.c", *(out_dir / f"mr_{k}.c" for k in model.kernels),
            *(out_dir / f"mr_cmsis_{a}.c" for a in model.adapters), out_dir / "mrs_server.c"]
