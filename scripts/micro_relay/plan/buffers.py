"""Buffers and lifetimes: what the offset planners place.

A buffer is a run of arena bytes with a lifetime [first, last] in steps of the execution order, both ends
inclusive (step s runs node order[s]; a node's inputs and outputs are all live at its step). `build_buffers`
turns a graph and an order into buffers:

1. Tensor lifetimes. A tensor lives from the step that writes it (step 0 for a graph input) to the step of
   its last reader. A graph output lives to the last step; a tensor nobody reads lives only at the step that
   writes it. Constants live in flash and are not planned; nor are state tensors, which keep their own
   storage between invokes, and tensors stored in a state's storage (plan/state.py). Graph inputs are arena bytes like any tensor, so invoke may
   overwrite them once read (as in TFLite Micro: refill them before each call).
2. Views. An op whose output is one contiguous run of input 0's bytes (OpDef.view_offset: a reshape, which
   reinterprets them all; a stride-1 strided_slice or a SPLIT part that is one run) gives its output those
   bytes: the output joins the buffer of input 0 at input 0's place in it plus the view's offset, unless input
   0 is a constant or a state (the kernel copies it: a state may be assigned while the output is still read)
   or the place is not a multiple of ALIGN (kernels may read their tensors a word at a time).
3. In place. Walking the order, an op with `inplace` writes its output over input 0 (the output joins input
   0's buffer) when all of these hold at its step:
   a. input 0 is not a constant or a state;
   b. no tensor already in input 0's buffer (input 0, its aliases, earlier in-place results) is read after
      this step or is a graph output: the bytes are dead once this node has read them. Tensors that join the
      buffer later (a reshape of the output) read a member at a later step, so the members present now are
      the ones to check;
   c. the output has exactly as many bytes as input 0's buffer and as many elements as input 0 (so an
      element-wise kernel reads in0[i] at the index where it writes out[i]);
   d. no other input of the node lives in that buffer (the kernel only promises that out == in0 is safe).
   The output joins at input 0's place in the buffer, which is 0: 3c leaves no room for another.
3'. Concatenation in place. A concatenate whose inputs are each one contiguous run of its output
   (OpDef.input_offsets: along the outermost axis that is not 1) has its producers write there: at its step,
   each input's buffer joins the output's at that input's offset, when every input is in the arena, is the
   only tensor of its size in its buffer at place 0, has its buffer's members read by nothing later and by no
   other node here (3b, 3d), is not a graph input (the caller fills those) and sits at a multiple of ALIGN, and
   no two inputs share a buffer. All inputs or none: the kernel then copies nothing (the emitter finds each
   input where its slice is). A joining buffer's overlap permission is dropped: the concatenation's buffer
   is live before that step (the other inputs' slices), which a permission's one shared step excludes.
4. Lagged overlap. An op whose kernel declares `overlap_delta` (convolutions and pools, kernels/overlap.py: the
   largest offset(output) - offset(input 0) at which its writes never reach input bytes it still has to
   read) gives its output buffer a permission on input 0's buffer when 3a, 3b and 3d hold at its step (the
   input's bytes are dead once this node has read them) and the output did not join that buffer: the two
   may share bytes provided offset(output) - offset(input) <= delta, delta rounded down to ALIGN (both
   offsets are multiples of ALIGN). Their lifetimes meet at this step only (the input's last, the output's
   first), so the kernel is the only code that touches the shared bytes.
5. A buffer is named after its first tensor; its size is the end of its last-ending tensor (place + bytes; the
   largest tensor, when every place is 0) rounded up to ALIGN bytes, its
   alignment the largest element size (at least ALIGN), its lifetime the span of its tensors' lifetimes.
6. Scratch a kernel asks for is a buffer of its own (no tensors), live at that node's step only, 8-aligned.
With `keep_all` (the debug build, plan/guards.py) steps 3 and 4 are skipped and every tensor lives to the last
step: each keeps its own bytes for the whole run, so every intermediate value can be read after it.

`live_bytes` and `lower_bound` give the bytes live at each step: no placement of these buffers can use
fewer bytes than the largest of them, so it is the lower bound reported next to the arena. A permitted pair
(output O over input I with delta d < 0) can share at most min(O.size + d, I.size) bytes: with
offset(O) <= offset(I) + d the shared bytes lie in [offset(I), offset(O) + O.size), so together the pair
needs at least max(O.size, I.size - d) bytes (the span when O starts exactly at offset(I) + d), and every
other buffer live then is disjoint from both. `live_bytes` takes those shared bytes off the pair's step.

`blocked` is what the offset planners and the check share: the bytes a placed buffer keeps another one out
of, which for a permitted pair is less than the whole buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.graph import Graph
from ..ir.registry import get_op

ALIGN = 4
SCRATCH_ALIGN = 8


@dataclass(frozen=True)
class Buffer:
    """Planner input: a name (the first tensor it holds), size in bytes, lifetime and alignment."""

    name: str
    size: int
    first: int
    last: int
    align: int = ALIGN
    tensors: tuple[str, ...] = ()
    # (buffer name, delta): this buffer may share bytes with that one if offset(self) - offset(it) <= delta
    overlap: tuple[tuple[str, int], ...] = ()
    places: tuple[int, ...] = ()  # each tensor's first byte within the buffer (empty: all at 0)

    def place_of(self, tensor: str) -> int:
        return self.places[self.tensors.index(tensor)] if self.places else 0

    def overlaps_in_time(self, other: "Buffer") -> bool:
        return self.first <= other.last and other.first <= self.last

    def delta_over(self, other: "Buffer") -> int | None:
        """The delta of this buffer's permission on `other`, or None."""
        return next((d for name, d in self.overlap if name == other.name), None)


def permitted(a: Buffer, at_a: int, b: Buffer, at_b: int) -> bool:
    """Whether a (at offset at_a) and b (at at_b) may share bytes: one holds a permission on the other and
    the offsets satisfy its delta."""
    d = a.delta_over(b)
    if d is not None and at_a - at_b <= d:
        return True
    d = b.delta_over(a)
    return d is not None and at_b - at_a <= d


def blocked(buf: Buffer, other: Buffer, at: int) -> tuple[int, int]:
    """The bytes [start, end) that `other`, placed at `at` and live with `buf`, keeps `buf` out of: buf at
    offset c clashes with it iff c < end and c + buf.size > start (so buf may start anywhere up to
    start - buf.size, or from end on). Normally other's own bytes; for a permitted pair with delta d:
    - buf holds the permission: c clashes iff at + d < c < at + other.size (and the bytes meet), so
      start = at + max(d + buf.size, 0), end = at + other.size;
    - other holds it: c clashes iff at - buf.size < c < at - d (and below at + other.size), so start = at,
      end = at + min(other.size, -d).
    """
    d = buf.delta_over(other)
    if d is not None:
        return at + max(d + buf.size, 0), at + other.size
    d = other.delta_over(buf)
    if d is not None:
        return at, at + min(other.size, -d)
    return at, at + other.size


def pair_saving(out: Buffer, inp: Buffer, delta: int) -> int:
    """The most bytes a permitted pair can share (see the module docstring)."""
    return max(0, min(out.size + delta, inp.size))


def overlap_pairs(buffers: list[Buffer]) -> list[tuple[Buffer, Buffer, int]]:
    """(output, input, delta) of every permission naming a buffer of the list."""
    by_name = {b.name: b for b in buffers}
    return [(b, by_name[name], d) for b in buffers for name, d in b.overlap if name in by_name]


def align_up(value: int, align: int) -> int:
    return (value + align - 1) // align * align


def scratch_name(node_index: int) -> str:
    return f"<scratch {node_index}>"


def tensor_lifetimes(graph: Graph, order: tuple[int, ...], keep_all: bool = False) -> dict[str, tuple[int, int]]:
    """Step 1: tensor name -> (first, last) step for every non-constant tensor the order touches (with
    keep_all, every one lives to the last step)."""
    end = max(len(order) - 1, 0)
    life: dict[str, list[int]] = {name: [0, 0] for name in graph.inputs}
    for step, node_index in enumerate(order):
        node = graph.nodes[node_index]
        for name in node.inputs:
            if name and in_arena(graph, name):
                life[name][1] = step
        for name in node.outputs:
            if in_arena(graph, name):
                life[name] = [step, step]
    for name in graph.outputs if not keep_all else life:
        if name in life:
            life[name][1] = end
    return {name: (span[0], span[1]) for name, span in life.items()}


def in_arena(graph: Graph, name: str) -> bool:
    """Whether a tensor is planned in the arena: not a constant (flash) nor a state (its own storage)."""
    t = graph.tensors[name]
    return not (t.is_constant or t.is_state or t.stored_in)


def _shares_input_bytes(graph: Graph, node) -> bool:
    """Whether the node's output may take input 0's bytes at all (steps 2 and 3a)."""
    return bool(node.inputs) and bool(node.inputs[0]) and bool(node.outputs) \
        and in_arena(graph, node.inputs[0]) and in_arena(graph, node.outputs[0])


def node_overlap(lowered) -> dict[int, int]:
    """Node index -> its kernel's overlap delta (KernelPlan.overlap_delta) rounded down to ALIGN (step 4; nodes
    whose kernel declares none are left out). `lowered`: a Lowered (lower/), or a graph lowered by default."""
    from ..lower import as_lowered

    return {i: delta // ALIGN * ALIGN for i, delta in as_lowered(lowered).overlap().items()}


def has_views(graph: Graph) -> bool:
    """Whether a node of the graph may become a view of step 2 other than an alias, or a concatenation of step
    3': what `views` of build_buffers turns on and off."""
    for node in graph.nodes:
        op = get_op(node.op)
        if not op.alias and node.inputs and (op.view_offset(graph, node) is not None
                                             or op.input_offsets(graph, node) is not None):
            return True
    return False


def build_buffers(graph: Graph, order: tuple[int, ...], scratch: dict[int, int],
                  overlap: dict[int, int] | None = None, views: bool = True,
                  keep_all: bool = False) -> list[Buffer]:
    """Buffers for running `graph.nodes` in `order` (node indices); `scratch` maps node index -> bytes,
    `overlap` node index -> overlap delta (node_overlap of the graph lowered by default when not given).
    `views` False keeps to aliases in step 2 and leaves out step 3': a view keeps all of its input live as long
    as it is read, and a concatenation in place holds every slice from its first producer on, so either can
    cost more than the copy saves; plan_memory tries both. keep_all: no tensor gives its bytes to another
    (see the module docstring), so no views either."""
    views = views and not keep_all
    overlap = {} if keep_all else node_overlap(graph) if overlap is None else overlap
    life = tensor_lifetimes(graph, order, keep_all)
    outputs, inputs = set(graph.outputs), set(graph.inputs)
    root_of = {name: name for name in life}
    place = {name: 0 for name in life}  # a tensor's first byte within its buffer
    members: dict[str, list[str]] = {name: [name] for name in life}
    permission: dict[str, tuple[str, int]] = {}  # output root -> (input root, delta)
    # Per buffer, over its members so far: the last step one is read, whether one is a graph output, and the
    # end of its last-ending member; kept up to date as members join, so a long in-place chain is not rescanned.
    last_read = {name: span[1] for name, span in life.items()}
    pinned = {name: name in outputs for name in life}
    extent = {name: graph.type_of(name).nbytes for name in life}

    def dies_here(node, root: str, step: int, reader_inputs=None) -> bool:
        """Steps 3b and 3d: no member of the buffer is read later or is a graph output, and no other input of
        the node lives in it."""
        others = node.inputs[1:] if reader_inputs is None else reader_inputs
        return not (last_read[root] > step or pinned[root]) \
            and not any(n and n in root_of and root_of[n] == root for n in others)

    def join(joining: str, root: str, at: int) -> None:
        """Buffer `joining` moves into `root`, its place 0 at `at`."""
        permission.pop(joining, None)
        for moved in members.pop(joining):
            root_of[moved] = root
            place[moved] += at
            members[root].append(moved)
        last_read[root] = max(last_read[root], last_read[joining])
        pinned[root] = pinned[root] or pinned[joining]
        extent[root] = max(extent[root], extent[joining] + at)

    for step, node_index in enumerate(order):
        node = graph.nodes[node_index]
        op = get_op(node.op)
        if node_index in overlap and node.inputs and node.inputs[0] and node.outputs \
                and in_arena(graph, node.inputs[0]) and in_arena(graph, node.outputs[0]):  # step 4
            root, out = root_of[node.inputs[0]], node.outputs[0]
            if root_of[out] != root and dies_here(node, root, step):
                permission[root_of[out]] = (root, min(overlap[node_index] + place[node.inputs[0]], 0))
        slices = op.input_offsets(graph, node) if views and node.outputs and in_arena(graph, node.outputs[0]) \
            else None
        if slices is not None:  # step 3'
            roots = [root_of.get(name) for name in node.inputs]
            if all(_takes_slice(graph, name, at, root_of, place, extent, inputs) for name, at in
                   zip(node.inputs, slices)) and len(set(roots)) == len(roots) \
                    and all(dies_here(node, r, step, ()) for r in roots) \
                    and not any(r in (held for held, _ in permission.values()) for r in roots):
                for r, at in zip(roots, slices):
                    join(r, root_of[node.outputs[0]], at)
            continue
        if not _shares_input_bytes(graph, node) or (keep_all and not op.alias):
            continue
        root, out, at = root_of[node.inputs[0]], node.outputs[0], place[node.inputs[0]]
        if op.inplace:  # in place: steps 3b-3d, over input 0 at place 0
            if at or not dies_here(node, root, step):
                continue
            if graph.type_of(out).nbytes != extent[root] \
                    or graph.type_of(out).size != graph.type_of(node.inputs[0]).size:
                continue
        else:  # a view: step 2
            view = op.view_offset(graph, node) if views or op.alias else None
            if view is None or (at + view) % ALIGN:
                continue
            at += view
        join(root_of[out], root, at)
    buffers = []
    for root in (name for name in graph.tensors if name in members):  # tensor-table order: deterministic
        names = members[root]
        align = max([ALIGN] + [graph.type_of(n).dtype.itemsize for n in names])
        places = tuple(place[n] for n in names)
        buffers.append(Buffer(root, align_up(extent[root], ALIGN), min(life[n][0] for n in names),
                              max(life[n][1] for n in names), align, tuple(names),
                              (permission[root],) if root in permission else (),
                              places if any(places) else ()))
    return buffers + scratch_buffers(order, scratch)


def _takes_slice(graph: Graph, name: str, at: int, root_of, place, extent, inputs) -> bool:
    """Step 3': whether an input of a concatenation can be written at `at` in its output."""
    return bool(name) and name in root_of and name not in inputs and at % ALIGN == 0 and in_arena(graph, name) \
        and place[name] == 0 and extent[root_of[name]] == graph.type_of(name).nbytes


def scratch_buffers(order: tuple[int, ...], scratch: dict[int, int]) -> list[Buffer]:
    """Step 6, the buffers build_buffers lists after the tensors' (those have tensors, these none): a
    caller that changes only scratch bytes can keep the tensors' buffers and rebuild these."""
    buffers = []
    step_of = {node_index: step for step, node_index in enumerate(order)}
    for node_index, nbytes in sorted(scratch.items()):
        if nbytes > 0 and node_index in step_of:
            step = step_of[node_index]
            buffers.append(Buffer(scratch_name(node_index), align_up(nbytes, SCRATCH_ALIGN), step, step,
                                  SCRATCH_ALIGN, ()))
    return buffers


def live_bytes(buffers: list[Buffer]) -> list[int]:
    """Bytes the buffers live at each step need at least: their total size (a difference array over the
    lifetimes) less what each permitted pair live together at that step can share."""
    if not buffers:
        return []
    delta = [0] * (max(b.last for b in buffers) + 2)
    for b in buffers:
        delta[b.first] += b.size
        delta[b.last + 1] -= b.size
    for out, inp, d in overlap_pairs(buffers):
        step = max(out.first, inp.first)
        if step <= min(out.last, inp.last):
            delta[step] -= pair_saving(out, inp, d)
            delta[min(out.last, inp.last) + 1] += pair_saving(out, inp, d)
    totals, running = [], 0
    for change in delta[:-1]:
        running += change
        totals.append(running)
    return totals


def lower_bound(buffers: list[Buffer]) -> int:
    """The largest total size of buffers live at one step: no placement can do better in this order."""
    return max(live_bytes(buffers), default=0)


def peak_step(buffers: list[Buffer]) -> int:
    """The first step at which the lower bound is reached."""
    totals = live_bytes(buffers)
    return totals.index(max(totals)) if totals else 0
