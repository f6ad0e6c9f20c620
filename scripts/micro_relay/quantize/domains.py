"""Which type each node of a float graph runs in: float, int8 or int16 (step 2 of rewrite.py), and the
refusal of a graph that is already quantized (step 1).

Nodes the user keeps in float (`keep_float`, by op name, op name without its `nn.` prefix, or node name) are
float; nodes the user names in `int16` (matched the same way) run with int16 activations and int8 weights;
an op with an int8 rule (rules.py) is int8; an op without one is an error naming every such op, unless kept,
and so is an int16 node whose op has no int16 kernel. A pure data-movement op whose data inputs all come from
float nodes stays in float too (from int16 nodes: int16). A node that reads and writes no float tensor (int32
shape arithmetic, logical ops on bools) is left as it is.
"""

from __future__ import annotations

from ..errors import CompileError
from ..ir.graph import Graph
from ..ir.registry import op_where
from ..ir.types import DType
from .rules import RULES

F32, I8, I16 = DType.FLOAT32, DType.INT8, DType.INT16
QUANTIZED_DTYPES = (DType.INT8, DType.UINT8, DType.INT16)
CONVERSION_OPS = ("qnn.quantize", "qnn.dequantize")


def refuse_quantized(graph: Graph) -> None:
    for node in graph.nodes:
        if node.op in CONVERSION_OPS:
            raise CompileError(f"model is already quantized (it has a {node.op} op); compile it without --quantize",
                               op_where(graph, node))
    for name, tensor in graph.tensors.items():
        t = tensor.type
        if t.quant is not None or t.dtype in QUANTIZED_DTYPES:
            raise CompileError("model is already quantized; compile it without --quantize",
                               f"tensor '{name}' is {t.dtype.value}")


def _matching(graph: Graph, wanted: tuple[str, ...], flag: str) -> set[int]:
    """Indices of the nodes named by op, op without `nn.`, or node name; an unmatched name is an error."""
    hits: set[int] = set()
    for name in wanted:
        found = {i for i, n in enumerate(graph.nodes) if name in (n.op, n.op.removeprefix("nn."), n.name)}
        if not found:
            ops = ", ".join(sorted({n.op for n in graph.nodes}))
            raise CompileError(f"{flag} '{name}' matches no op of the model (its ops: {ops})", flag)
        hits |= found
    return hits


def is_real(graph: Graph, name: str) -> bool:
    """A float tensor of the float graph: the only kind that is calibrated and quantized."""
    return bool(name) and graph.type_of(name).dtype.is_float


def plan_domains(graph: Graph, keep_float=(), int16=()) -> list[DType]:
    """FLOAT32, INT8 or INT16 per node; raises the one-line error naming the ops with no integer kernel."""
    untouched = {i for i, n in enumerate(graph.nodes) if not any(is_real(graph, t) for t in (*n.inputs, *n.outputs))}
    kept = _matching(graph, tuple(keep_float), "--keep-float")
    wide = _matching(graph, tuple(int16), "--int16") - untouched
    both = sorted(kept & wide)
    if both:
        node = graph.nodes[both[0]]
        raise CompileError(f"{node.op} '{node.name or node.outputs[0]}' is named by both --keep-float and --int16; "
                           "choose one", "--int16")
    kept |= untouched
    missing = sorted({n.op for i, n in enumerate(graph.nodes) if i not in kept and n.op not in RULES})
    if missing:
        hint = " ".join(f"--keep-float {op}" for op in missing)
        raise CompileError(f"no int8 kernel for op{'s' if len(missing) > 1 else ''} {', '.join(missing)}; "
                           f"to keep {'them' if len(missing) > 1 else 'it'} in float pass {hint}", "--quantize int8")
    refused = sorted({graph.nodes[i].op for i in wide if not RULES[graph.nodes[i].op].int16})
    if refused:
        many = len(refused) > 1
        raise CompileError(f"no int16 kernel for {', '.join(refused)}; "
                           f"let {'them' if many else 'it'} run in int8, or in float with "
                           f"{' '.join(f'--keep-float {op}' for op in refused)}", "--int16")
    for i, node in enumerate(graph.nodes):
        rule = RULES.get(node.op)
        if i in kept or rule is None or rule.weight is None:
            continue
        params = [node.inputs[k] for k in (rule.weight, rule.bias) if k < len(node.inputs) and node.inputs[k]]
        if not all(graph.tensors[n].is_constant for n in params):
            raise CompileError(f"{'int16' if i in wide else 'int8'} {node.op} needs a constant weight and bias; "
                               f"to keep it in float pass --keep-float {node.op}", op_where(graph, node))
    producer = graph.producers()
    domains: list[DType] = []
    for i, node in enumerate(graph.nodes):
        data = [n for n in node.inputs if is_real(graph, n) and not graph.tensors[n].is_constant]
        sources = {domains[producer[n]] if n in producer else None for n in data}
        inherited = sources.pop() if len(sources) == 1 else None
        if i in kept:
            domains.append(F32)
        elif i in wide:
            domains.append(I16)
        elif RULES[node.op].follows_input and (inherited == F32 or (inherited == I16 and RULES[node.op].int16)):
            domains.append(inherited)
        else:
            domains.append(I8)
    return domains
