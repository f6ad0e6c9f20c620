"""ONNX LSTM and GRU, which apache-tvm's Relax importer does not take: cut out of the ONNX graph before the
import, spliced back into the lowered graph as nn.lstm / nn.gru after it.

The cut: each recurrent node is removed; its input X becomes an extra graph output and each of its outputs
that something reads (or the graph returns) an extra graph input, appended in a fixed order, so the rest of
the model imports and lowers as usual. The splice: the recurrent op reads the tensor the extra output names,
its results are reshaped to the ONNX output shapes (and put in the stored layout of the extra input they
replace), and the nodes are ordered again so every tensor is written before it is read.

Supported: forward direction, default activations (Sigmoid, Tanh, Tanh), no clip, no peepholes, no coupled
input-forget gate, no sequence_lens, constant weights, biases and initial states; layout 0 (time-major) and 1.
ONNX gate orders are i, o, f, c (LSTM) and z, r, h (GRU); nn.lstm takes TFLite's i, f, c, o, and one bias per
gate, so an LSTM's Wb and Rb are added here (in float32). The nodes compute each invoke from the initial states,
as ONNX does (no state carried between invokes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import CompileError
from ...ir.graph import Graph, Node, Tensor, fresh_name
from ...ir.types import DType, TensorType
from .onnx_checks import node_where

RECURRENT = ("LSTM", "GRU")
_DEFAULT_ACTIVATIONS = {"LSTM": ["sigmoid", "tanh", "tanh"], "GRU": ["sigmoid", "tanh"]}
_LSTM_ORDER = (0, 2, 3, 1)  # TFLite's i, f, c, o taken from ONNX's i, o, f, c blocks


@dataclass
class Cut:
    """One recurrent node taken out of the ONNX graph, with what the splice needs."""

    op: str
    name: str
    x: str
    time_major: bool
    constants: dict[str, np.ndarray]
    outputs: list[tuple[int, str, tuple[int, ...]]] = field(default_factory=list)  # (slot, ONNX name, shape)
    linear_before_reset: bool = False  # GRU: the reset gate multiplies R_h h + Rb_h (else it multiplies h)


def _attrs(node) -> dict:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _cut_one(node, initializers: dict, shapes: dict, source: str) -> Cut:
    where = node_where(source, node)

    def fail(what):
        raise CompileError(f"{node.op_type} {what}", where)

    a = _attrs(node)
    direction = a.get("direction", b"forward")
    if (direction.decode() if isinstance(direction, bytes) else direction) != "forward":
        fail(f"direction {direction!r} is not supported (forward only)")
    activations = [s.decode().lower() if isinstance(s, bytes) else str(s).lower() for s in a.get("activations", [])]
    if activations and activations != _DEFAULT_ACTIVATIONS[node.op_type]:
        fail(f"activations {activations} are not supported (only the defaults)")
    if "clip" in a:
        fail("with clip is not supported")
    if a.get("input_forget", 0):
        fail("with a coupled input-forget gate is not supported")
    layout = int(a.get("layout", 0))
    if layout not in (0, 1):
        fail(f"layout {layout} is not 0 or 1")
    inputs = list(node.input) + [""] * 8
    x = inputs[0]
    if x not in shapes or len(shapes[x]) != 3:
        fail(f"input X must have a static 3-D shape, got {list(shapes.get(x, ())) or 'unknown'}")
    gates = 4 if node.op_type == "LSTM" else 3
    constants = {}
    for index, what in enumerate(("W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P")):
        name = inputs[index + 1]
        if not name or (node.op_type == "GRU" and what in ("initial_c", "P")):
            continue
        if name not in initializers:
            fail(f"input {what} must be a constant")
        constants[what] = initializers[name]
    if "W" not in constants or "R" not in constants:
        fail("needs constant W and R")
    time, batch, size = shapes[x] if layout == 0 else (shapes[x][1], shapes[x][0], shapes[x][2])
    w, r = constants["W"], constants["R"]
    hidden = r.shape[-1] if r.ndim == 3 else 0
    if int(a.get("hidden_size", hidden)) != hidden or w.shape != (1, gates * hidden, size) or \
            r.shape != (1, gates * hidden, hidden):
        fail(f"W {list(w.shape)} and R {list(r.shape)} do not fit hidden_size {a.get('hidden_size')} and input "
             f"{list(shapes[x])}")
    if "B" in constants and constants["B"].shape != (1, 2 * gates * hidden):
        fail(f"B has shape {list(constants['B'].shape)}, expected [1, {2 * gates * hidden}]")
    if "P" in constants and np.any(constants.pop("P")):
        fail("with peephole weights is not supported")
    lengths = constants.pop("sequence_lens", None)
    if lengths is not None and np.any(lengths != time):
        fail("with sequence_lens shorter than the sequence is not supported")
    state_shape = (1, batch, hidden) if layout == 0 else (batch, 1, hidden)
    for what in ("initial_h", "initial_c"):
        if what in constants and constants[what].shape != state_shape:
            fail(f"{what} has shape {list(constants[what].shape)}, expected {list(state_shape)}")
    cut = Cut(node.op_type, node.name or f"{node.op_type.lower()}_{node.output[0]}", x, layout == 0, constants,
              linear_before_reset=bool(a.get("linear_before_reset", 0)))
    y_shape = (time, 1, batch, hidden) if layout == 0 else (batch, time, 1, hidden)
    for slot, name in enumerate(node.output):
        if name:
            cut.outputs.append((slot, name, y_shape if slot == 0 else state_shape))
    return cut


def cut_recurrent(model, shapes: dict, source: str):
    """(model without its LSTM/GRU nodes, the cuts, extra inputs, extra outputs); the model is unchanged (and
    the lists empty) when it has none."""
    import onnx
    from onnx import helper, numpy_helper

    nodes = [n for n in model.graph.node if n.op_type in RECURRENT and n.domain in ("", "ai.onnx")]
    if not nodes:
        return model, [], [], []
    initializers = {i.name: numpy_helper.to_array(i).astype(np.float32) for i in model.graph.initializer
                    if i.data_type == onnx.TensorProto.FLOAT or i.data_type == onnx.TensorProto.INT32}
    read = {name for n in model.graph.node if n not in nodes for name in n.input} | {o.name for o in model.graph.output}
    cuts, extra_inputs, extra_outputs = [], [], []
    for node in nodes:
        cut = _cut_one(node, initializers, shapes, source)
        cut.outputs = [o for o in cut.outputs if o[1] in read or any(o[1] in n.input for n in nodes)]
        cuts.append(cut)
    cut_model = onnx.ModelProto()
    cut_model.CopyFrom(model)
    del cut_model.graph.node[:]
    cut_model.graph.node.extend(n for n in model.graph.node if n not in nodes)
    for cut in cuts:
        for _, name, shape in cut.outputs:
            extra_inputs.append(name)
            cut_model.graph.input.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, list(shape)))
    for cut in cuts:
        if cut.x not in extra_outputs:
            extra_outputs.append(cut.x)
            cut_model.graph.output.append(helper.make_tensor_value_info(cut.x, onnx.TensorProto.FLOAT,
                                                                        list(shapes[cut.x])))
    return cut_model, cuts, extra_inputs, extra_outputs


class _Splicer:
    """Builds the recurrent nodes into a lowered graph: new tensors and nodes by name."""

    def __init__(self, graph: Graph):
        self.tensors = dict(graph.tensors)
        self.nodes = list(graph.nodes)

    def constant(self, base: str, data: np.ndarray) -> str:
        name = fresh_name(self.tensors, base)
        data = np.ascontiguousarray(data, dtype=np.float32)
        self.tensors[name] = Tensor(name, TensorType(data.shape, DType.FLOAT32), data)
        return name

    def tensor(self, base: str, shape) -> str:
        name = fresh_name(self.tensors, base)
        self.tensors[name] = Tensor(name, TensorType(tuple(shape), DType.FLOAT32))
        return name

    def into(self, source: str, target: str, label: str) -> None:
        """`target` (an extra graph input of the cut model) becomes reshape(source), transposed into target's
        stored layout when the lowering stored it channels-last (a 4-D input under --io-layout nhwc)."""
        t = self.tensors[target]
        if t.source_axes is None:
            self.nodes.append(Node("reshape", (source,), (target,), {"newshape": t.type.shape}, label))
        else:
            model = self.tensor(f"{target}/model_order", t.source_shape)
            self.nodes.append(Node("reshape", (source,), (model,), {"newshape": t.source_shape}, label))
            self.nodes.append(Node("transpose", (model,), (target,), {"axes": tuple(t.source_axes)}, label))
        self.tensors[target] = Tensor(target, t.type)  # no longer a graph input


def _splice_one(s: _Splicer, cut: Cut, x: str, targets: dict[int, str]) -> None:
    c = cut.constants
    w, r = c["W"][0], c["R"][0]
    hidden = r.shape[-1]
    x_shape = s.tensors[x].type.shape
    batch = x_shape[1] if cut.time_major else x_shape[0]
    gates = 4 if cut.op == "LSTM" else 3
    bias = c.get("B", np.zeros((1, 2 * gates * hidden), np.float32))[0]
    h0 = c.get("initial_h", np.zeros((1, batch, hidden), np.float32)).reshape(batch, hidden)
    label = cut.name
    out = s.tensor(f"{label}/Y", (*x_shape[:2], hidden))
    h_new = s.tensor(f"{label}/Y_h", (batch, hidden))
    results = {0: out, 1: h_new}
    h_state = s.constant(f"{label}/initial_h", h0)
    if cut.op == "LSTM":
        w_b, r_b = np.split(bias, 2)
        blocks = [np.split(m, 4) for m in (w, r, w_b + r_b)]
        inputs = [x] + [""] * 23
        for k, onnx_gate in enumerate(_LSTM_ORDER):
            inputs[1 + k] = s.constant(f"{label}/W{'ifco'[k]}", blocks[0][onnx_gate])
            inputs[5 + k] = s.constant(f"{label}/R{'ifco'[k]}", blocks[1][onnx_gate])
            inputs[12 + k] = s.constant(f"{label}/B{'ifco'[k]}", blocks[2][onnx_gate].astype(np.float32))
        c0 = c.get("initial_c", np.zeros((1, batch, hidden), np.float32)).reshape(batch, hidden)
        inputs[18], inputs[19] = h_state, s.constant(f"{label}/initial_c", c0)
        c_new = results[2] = s.tensor(f"{label}/Y_c", (batch, hidden))
        s.nodes.append(Node("nn.lstm", tuple(inputs), (out, h_new, c_new),
                            {"time_major": cut.time_major, "cell_clip": 0.0}, label))
    else:
        w_b, r_b = np.split(bias, 2)
        inputs = (x, s.constant(f"{label}/W", w), s.constant(f"{label}/R", r), s.constant(f"{label}/Wb", w_b),
                  s.constant(f"{label}/Rb", r_b), h_state)
        s.nodes.append(Node("nn.gru", inputs, (out, h_new), {"time_major": cut.time_major,
                                                              "linear_before_reset": cut.linear_before_reset},
                            label))
    for slot, target in targets.items():
        s.into(results[slot], target, label)


def splice_recurrent(graph: Graph, cuts: list[Cut], extra_inputs: list[str], extra_outputs: list[str]) -> Graph:
    """The lowered cut model with the recurrent nodes back in, in an order that writes before it reads."""
    if not cuts:
        return graph
    n_in, n_out = len(extra_inputs), len(extra_outputs)
    spliced_inputs = dict(zip(extra_inputs, graph.inputs[len(graph.inputs) - n_in:]))
    x_tensors = dict(zip(extra_outputs, graph.outputs[len(graph.outputs) - n_out:]))
    s = _Splicer(graph)
    for cut in cuts:
        _splice_one(s, cut, x_tensors[cut.x], {slot: spliced_inputs[name] for slot, name, _ in cut.outputs})
    inputs = graph.inputs[:len(graph.inputs) - n_in]
    outputs = graph.outputs[:len(graph.outputs) - n_out]
    nodes = _write_before_read(s.nodes, set(inputs) | {n for n, t in s.tensors.items() if t.is_constant})
    return Graph(s.tensors, (), inputs, outputs).with_nodes(nodes, s.tensors)


def _write_before_read(nodes: list[Node], available: set[str]) -> list[Node]:
    """The nodes in their order where it allows, each moved after the nodes writing what it reads."""
    pending, ordered, available = list(nodes), [], set(available)
    while pending:
        for i, node in enumerate(pending):
            if all(not n or n in available for n in node.inputs):
                ordered.append(pending.pop(i))
                available.update(node.outputs)
                break
        else:
            raise CompileError("the recurrent nodes' inputs depend on their own outputs", nodes[0].name)
    return ordered
