"""Layer by layer against onnxruntime: each quantized layer of a QDQ model compiled on its own and fed
onnxruntime's own int8 inputs, so a layer is judged by what it computes, not by what the layers before it
handed on.

An int8 activation of a QDQ model is a QuantizeLinear output. A layer is the nodes from the QuantizeLinear
nodes whose outputs it reads to the QuantizeLinear that writes its own output: extracted (onnx.utils.Extractor)
with the float tensors those input QuantizeLinear nodes quantize as the submodel's inputs. Fed onnxruntime's
int8 input dequantized, x = (q - zero) * scale, that QuantizeLinear gives back q exactly (x / scale is
within float rounding of the integer q - zero), so the layer computes from exactly onnxruntime's integers.

onnxruntime runs the whole model once (optimizations off), every int8 activation added as an output; then each
layer's extracted submodel goes through the compiler and the reference interpreter (which computes what the C
computes), and its int8 output is compared with onnxruntime's value of the same tensor.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class Layer:
    output: str             # the int8 tensor the layer writes (a QuantizeLinear output)
    ops: str                # the float op(s) between its dequantizes and its quantize
    size: int               # output elements
    equal: float            # fraction equal to onnxruntime's
    within_one: float       # fraction within one step
    worst: int              # largest difference in steps


def _quantize_nodes(model):
    return {n.output[0]: n for n in model.graph.node if n.op_type == "QuantizeLinear"}


def _initializer(model, name: str) -> np.ndarray:
    from onnx import numpy_helper

    for t in model.graph.initializer:
        if t.name == name:
            return numpy_helper.to_array(t)
    raise KeyError(name)


def _dequantized(q: np.ndarray, scale: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """The float input whose QuantizeLinear gives back q: (q - zero) * scale in float32."""
    return ((q - zero.astype(np.int32)) * scale.astype(np.float32)).astype(np.float32)


def _with_activation_outputs(model, names: list[str]):
    import onnx

    extra = onnx.ModelProto()
    extra.CopyFrom(model)
    known = {o.name for o in extra.graph.output}
    for name in names:
        if name not in known:
            extra.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.INT8, None))
    return extra


def _layer_inputs(model, output: str, quantizers) -> tuple[list[str], list]:
    """The int8 activations a layer reads (walking back from its quantize to the first QuantizeLinear
    outputs; a QuantizeLinear of a constant is part of the layer) and the nodes in between."""
    producer = {o: n for n in model.graph.node for o in n.output}
    constants = {t.name for t in model.graph.initializer}
    reads, nodes, stack, seen = [], [], [quantizers[output].input[0]], set()
    while stack:
        name = stack.pop()
        if name in seen or name in constants or name not in producer:
            continue
        seen.add(name)
        node = producer[name]
        if node.op_type == "QuantizeLinear" and node.input[0] not in constants and \
                producer.get(node.input[0], node).op_type != "Constant":
            reads.append(name)
            continue
        nodes.append(node)
        stack.extend(i for i in node.input if i)
    return sorted(set(reads)), nodes


def compare_layers(path: Path, x: np.ndarray, work: Path, input_name: str = "input") -> list[Layer]:
    """Every layer of the QDQ model at `path` on input `x`, as `Layer` rows in graph order."""
    import onnx
    from onnx.utils import Extractor

    from micro_relay.frontend import load_model
    from micro_relay.passes import run_pipeline
    from micro_relay.reference.interpreter import run

    from .ort_oracle import oracle_session

    model = onnx.load(str(path))
    model = onnx.shape_inference.infer_shapes(model)
    quantizers = _quantize_nodes(model)
    everything = work / "all_activations.onnx"
    onnx.save(_with_activation_outputs(model, list(quantizers)), str(everything))
    session = oracle_session(everything)
    names = [o.name for o in session.get_outputs()]
    values = dict(zip(names, session.run(None, {input_name: x})))
    extractor = Extractor(model)
    layers = []
    for k, (output, q) in enumerate(quantizers.items()):
        reads, nodes = _layer_inputs(model, output, quantizers)
        if not reads or not nodes:
            continue  # the model's input quantize: nothing computed from int8 yet
        floats = [quantizers[r].input[0] for r in reads]
        sub = extractor.extract_model(floats, [output])
        sub_path = work / f"layer_{k}.onnx"
        onnx.save(sub, str(sub_path))
        feeds = [_dequantized(values[r].astype(np.int32), _initializer(model, quantizers[r].input[1]),
                              _initializer(model, quantizers[r].input[2])) for r in reads]
        order = [i.name for i in sub.graph.input]
        ordered = [feeds[floats.index(name)] for name in order]
        shapes = {name: tuple(f.shape) for name, f in zip(order, ordered)}  # shape inference may leave dims open
        graph = run_pipeline(load_model(sub_path, input_shapes=shapes, io_layout="nchw"))
        ours = run(graph, ordered)[0].astype(np.int32).reshape(-1)
        theirs = values[output].astype(np.int32).reshape(-1)
        diff = np.abs(ours - theirs)
        layers.append(Layer(output, "+".join(sorted({n.op_type for n in nodes} - {"DequantizeLinear"})) or "copy",
                            int(theirs.size), float(np.mean(diff == 0)), float(np.mean(diff <= 1)), int(diff.max())))
    return layers
