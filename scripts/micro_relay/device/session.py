"""One device session: compile the model as the firmware was built, reach the device (start the emulator, or
open the port), check that it runs this model, and run it: `run` (outputs), `profile` (per-layer counts) and
`compare` (every layer's output against the reference interpreter, the outputs against TFLite Micro).

`compare` needs every intermediate tensor after the run, which only a debug build keeps (--debug-guards,
plan/guards.py), so it always compiles one: on an emulator the firmware is built so, a board must have been
flashed with one.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..bench.machines import get_machine
from ..codegen.crt import CRT_DIR
from ..compiler import compile_graph, default_name, prepare_graph
from ..emulate.qemu import board_of
from ..ir.registry import get_op
from ..plan.guards import debug_tensors
from ..plan.report import plan_report
from ..reference import run as reference_run
from ..target import DEFAULT_TARGET, target_for_core
from .commands import Device, DeviceError, InvokeResult, check_identity, to_array
from .identity import identity_of
from .native_sim import native_sim_server
from .qemu import build_server, qemu_server, zephyr_qemu_server
from .transport import TtyTransport


@dataclass(frozen=True)
class Where:
    """A board at `port`, an emulated `qemu` board the session builds firmware for and starts, or a Zephyr
    build of samples/model_server it starts: for native_sim (`native_sim`: its zephyr.exe or build folder) or
    for a board QEMU emulates (`zephyr_qemu`: the build folder)."""

    port: str | None = None
    qemu: str | None = None
    native_sim: str | None = None
    zephyr_qemu: str | None = None
    timeout: float = 30.0
    keep: str | None = None  # build folder to keep (emulator)
    model_defines: tuple[str, ...] = ()  # tests: defines for NAME.c and more sources in the emulator's firmware
    extra_sources: tuple[Path, ...] = ()


def compile_for(model_path: str, where: Where, name: str | None = None, target: str | None = None,
                kernels: str = "micro-relay", debug: bool = False):
    """The CompiledModel the firmware was (or is to be) built from. On an emulator the target defaults to its
    core's, as `micro-relay bench` does; on a board to the compiler's default: give the firmware's --target."""
    if target is None:
        target = target_for_core(get_machine(where.qemu).core).name if where.qemu else DEFAULT_TARGET
    graph = prepare_graph(model_path)
    return compile_graph(graph, name or default_name(model_path), Path(model_path).name, kernels=kernels,
                         target=target, debug_guards=debug)


@contextlib.contextmanager
def open_device(model, where: Where):
    """A Device running `model` (its identity checked); DeviceError when it runs another one."""
    if where.qemu:
        with contextlib.ExitStack() as stack:
            work = Path(where.keep) if where.keep else Path(stack.enter_context(
                tempfile.TemporaryDirectory(prefix="mr-device-")))
            work.mkdir(parents=True, exist_ok=True)
            elf = build_server(model, where.qemu, work, where.model_defines, where.extra_sources)
            transport = stack.enter_context(qemu_server(elf, where.qemu, where.timeout))
            device = Device(transport, f"QEMU {where.qemu}")
            check_identity(device, identity_of(model))
            yield device
        return
    if where.native_sim or where.zephyr_qemu:
        server = (native_sim_server(where.native_sim, where.timeout) if where.native_sim
                  else zephyr_qemu_server(where.zephyr_qemu, where.timeout))
        with server as transport:
            device = Device(transport, f"native_sim {where.native_sim}" if where.native_sim
                            else f"QEMU {board_of(Path(where.zephyr_qemu))} {where.zephyr_qemu}")
            check_identity(device, identity_of(model))
            yield device
        return
    transport = TtyTransport(where.port, where.timeout)
    try:
        device = Device(transport, where.port)
        check_identity(device, identity_of(model))
        yield device
    finally:
        transport.close()


def status_names() -> dict[int, str]:
    """MR_OK, MR_ERR_* by value, from crt.h."""
    text = (CRT_DIR / "include" / "micro_relay" / "crt.h").read_text()
    return {int(v): n for n, v in re.findall(r"^#define (MR_(?:OK|ERR_[A-Z_0-9]+)) (\d+)$", text, re.MULTILINE)}


def invoke_on(device: Device, model, inputs: list[np.ndarray]) -> InvokeResult:
    graph = model.graph
    for index, (name, value) in enumerate(zip(graph.inputs, inputs)):
        t = graph.type_of(name)
        data = np.ascontiguousarray(value, dtype=np.dtype(t.dtype.numpy).newbyteorder("<")).tobytes()
        if len(data) != t.nbytes:
            raise DeviceError(f"input {index} has {len(data)} bytes, the model's {list(t.shape)} needs {t.nbytes}",
                              f"tensor '{name}'")
        device.write_input(index, data)
    return device.invoke()


def failure_text(model, result: InvokeResult) -> str:
    """'MR_ERR_GUARD (6) at step 9: nn.avg_pool2d 'pool' -> pool/out' for a run that failed."""
    name = status_names().get(result.status, "an unknown status")
    where = ""
    if 0 <= result.failed_layer < len(model.plan.order):
        node = model.graph.nodes[model.plan.order[result.failed_layer]]
        where = f" at step {result.failed_layer}: {node.op} '{node.name}'"
        where += f" -> {node.outputs[0]}" if node.outputs else ""
    return f"{name} ({result.status}){where}"


def read_outputs(device: Device, model) -> list[np.ndarray]:
    graph = model.graph
    return [to_array(device.read_output(i, graph.type_of(n).nbytes), graph.type_of(n).dtype.numpy,
                     graph.type_of(n).shape) for i, n in enumerate(graph.outputs)]


def profile_rows(model, result: InvokeResult, counts: list[int], unit: str) -> dict:
    """Per layer: op, MACs, count and share of the whole invoke, the kernel path the lowering chose."""
    graph = model.graph
    report = {n["step"]: n for n in plan_report(model.name, model.lowered, model.plan, "")["nodes"]}
    rows = []
    for step, count in enumerate(counts):
        node = graph.nodes[model.plan.order[step]]
        entry = report[step]
        kernel = "; ".join(f"{backend}: {text}" for backend, text in entry.get("kernel", {}).items())
        rows.append({"step": step, "node": model.plan.order[step], "op": node.op, "name": node.name,
                     "macs": int(get_op(node.op).macs(graph, node)), unit: count,
                     "percent": round(100.0 * count / result.count, 2) if result.count else None,
                     "kernel": kernel})
    total = sum(counts)
    return {"model": model.name, "unit": unit, "invoke": result.count, "layers_sum": total,
            "layers_sum_ratio": round(total / result.count, 5) if result.count else None, "layers": rows}


def _differs(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise: integers must be equal, floats within 1e-5 of the tensor's largest magnitude (libm)."""
    want = np.asarray(want).reshape(got.shape)
    if got.dtype.kind == "f":
        scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-30)
        return ~np.isclose(got, want, rtol=1e-5, atol=1e-5 * scale, equal_nan=True)
    return got != want


def _divergence(model, step: int, tensor: str, got: np.ndarray, want: np.ndarray, against: str) -> dict:
    bad = np.argwhere(_differs(got, want))
    node = model.graph.nodes[model.plan.order[step]]
    want = np.asarray(want).reshape(got.shape)
    first = [{"index": [int(i) for i in index], "device": got[tuple(index)].item(),
              against: want[tuple(index)].item()} for index in bad[:5]]
    return {"step": step, "node": model.plan.order[step], "op": node.op, "name": node.name, "tensor": tensor,
            "against": against, "elements_differing": int(len(bad)), "elements": int(got.size), "first": first}


def compare_on(device: Device, model, model_path: str, inputs: list[np.ndarray]) -> dict:
    """The first layer whose output differs from the reference interpreter's, and the outputs against TFLite
    Micro for a TFLite model; a run that fails is a divergence at the layer that failed."""
    graph = model.graph
    result = invoke_on(device, model, inputs)
    report = {"model": model.name, "invoke_status": status_names().get(result.status, str(result.status))}
    expected = reference_run(graph, [x.copy() for x in inputs], keep_all=True)
    divergence = None
    if result.status != 0:
        divergence = {"step": result.failed_layer, "reason": failure_text(model, result)}
    for k, (step, tensor) in enumerate(debug_tensors(graph, model.plan.order)):
        if divergence is not None:
            break
        t = graph.type_of(tensor)
        got = to_array(device.read_tensor(k, t.nbytes), t.dtype.numpy, t.shape)
        if _differs(got, expected[tensor]).any():
            divergence = _divergence(model, step, tensor, got, expected[tensor], "reference")
    report["layers_compared"] = len(model.plan.order)
    tflm = tflite_micro_outputs(model_path, inputs, len(graph.outputs))
    if result.status == 0 and tflm is not None:
        outputs = read_outputs(device, model)
        same = [not _differs(got, want).any() for got, want in zip(outputs, tflm)]
        report["tflite_micro"] = {"outputs_match": all(same)}
        if divergence is None and not all(same):
            index = same.index(False)
            tensor = graph.outputs[index]
            step = next(s for s, i in enumerate(model.plan.order) if tensor in graph.nodes[i].outputs)
            divergence = _divergence(model, step, tensor, outputs[index], tflm[index], "tflite_micro")
    elif tflm is None:
        report["tflite_micro"] = None  # not a TFLite model, or tflite-micro is not installed
    report["first_divergence"] = divergence
    return report


def tflite_micro_outputs(model_path: str, inputs: list[np.ndarray], count: int) -> list[np.ndarray] | None:
    if not str(model_path).endswith(".tflite"):
        return None
    try:
        from tflite_micro import runtime
    except ImportError:
        return None
    interpreter = runtime.Interpreter.from_bytes(Path(model_path).read_bytes(), arena_size=1 << 22)
    for index, value in enumerate(inputs):
        interpreter.set_input(np.array(value, copy=True), index)
    interpreter.invoke()
    return [np.array(interpreter.get_output(k)) for k in range(count)]
