"""A Zephyr build folder of samples/model_server as the device: `micro-relay device run -d BUILD`
(`west micro-relay device run` uses ./build).

`micro-relay device server` leaves a record beside the sources it writes (model_server.json: the model file,
its C name, target, kernels and whether it is the debug server), so the host compiles the same C from the build
folder alone and checks it against the firmware's model hash. Where the firmware runs follows from the build's
board (zephyr/.config):
- native_sim: the build's zephyr.exe is started (native_sim.py);
- a board QEMU emulates (emulate/qemu.py: mps2/an385..an521, qemu_cortex_m3): the build's zephyr.elf is started
  in QEMU, its UART on a socket (qemu.py);
- any other board: it must have been flashed (`west flash`), and --port names its serial port. Nothing here
  ever flashes a board.
Options given on the command line win over the record.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import CompileError

RECORD = "model_server.json"
SERVER_FOLDER = "model_server"  # samples/model_server writes its sources to BUILD/model_server


def server_record(model, model_path: str, out_dir: str | Path, debug: bool) -> str:
    """The record's text for a server written to out_dir; the model's path is kept relative to out_dir, so a
    moved build folder still finds the model it generated inside itself."""
    source = os.path.relpath(Path(model_path).resolve(), Path(out_dir).resolve())
    return json.dumps({"model": source, "name": model.name, "target": model.target.name,
                       "kernels": model.kernel_backend, "debug_guards": bool(debug)}, indent=2, sort_keys=True) + "\n"


def read_record(build_dir: Path) -> dict:
    """The model server record of a build folder (its model path made usable from here)."""
    if not build_dir.is_dir():
        raise CompileError("build folder not found", str(build_dir))
    path = build_dir / SERVER_FOLDER / RECORD
    if not path.is_file():
        raise CompileError(f"no model server in this build (no {SERVER_FOLDER}/{RECORD}: build samples/model_server, "
                           "or name the model file and --port)", str(build_dir))
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise CompileError(f"unreadable model server record: {exc}", str(path)) from None
    fields = {"model": str, "name": str, "target": str, "kernels": str, "debug_guards": bool}
    if not isinstance(record, dict) or any(not isinstance(record.get(k), t) for k, t in fields.items()):
        raise CompileError(f"the model server record lacks one of {', '.join(fields)}", str(path))
    record["model"] = os.path.normpath(path.parent / record["model"])
    return record


def apply_build_folder(args) -> None:
    """Fill the device command's unset options from the build folder: the model and its compile options from
    the record, where to reach the firmware from the board (none when --port, --qemu or --native-sim is given)."""
    from ..emulate.qemu import MACHINES, board_of, machine_of

    build_dir = Path(args.build_dir)
    record = read_record(build_dir)
    args.model = args.model or record["model"]
    args.name = args.name or record["name"]
    args.target = args.target or record["target"]
    args.kernels = args.kernels or record["kernels"]
    if args.device_command == "compare" and not record["debug_guards"]:
        raise CompileError("compare needs the debug server: rebuild with -DMICRO_RELAY_SERVER_DEBUG=1", str(build_dir))
    if hasattr(args, "debug_guards"):
        args.debug_guards = args.debug_guards or record["debug_guards"]
    if args.port or args.qemu or args.native_sim:
        return
    board = board_of(build_dir)
    if board.split("/")[0] == "native_sim":
        args.native_sim = str(build_dir)
        return
    try:
        machine_of(board, "")
    except CompileError:
        started = ", ".join(["native_sim", *sorted(MACHINES)])
        raise CompileError(f"board {board} is not one this command starts ({started}): flash it "
                           f"(west flash -d {build_dir}) and give its serial port with --port",
                           str(build_dir)) from None
    args.zephyr_qemu = str(build_dir)
