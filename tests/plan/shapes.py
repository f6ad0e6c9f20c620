"""Named graph shapes for the planner tests, each drawn in its docstring with its arena worked out by hand.

Sizes are bytes (int8 vectors); `in`/`out` are the graph input and output. Steps count nodes in the order
run; a tensor is live from the step that writes it (0 for the input) to its last reader, the output to the
last step. u* are plain ops (test.plan.unary), ip* run in place, r* are reshapes (alias), L* are window
kernels whose output may start delta bytes below their dying input (test.plan.lagged).
"""

from __future__ import annotations

from micro_relay.ir.graph import Graph

from .graphs import ALIAS, BINARY, CONCAT, INPLACE_BINARY, INPLACE_UNARY, LAGGED, SCRATCH, UNARY, Builder


def linear_chain() -> Graph:
    """
        in(400) ─► u0 ─► a(800) ─► u1 ─► b(1200) ─► u2 ─► out(400)

    Live per step: 0: in+a = 1200, 1: a+b = 2000, 2: b+out = 1600. Lower bound 2000 (a and b together).
    It fits: a [0,800), b [800,2000); in (step 0, beside a) [800,1200); out (step 2, beside b) [0,400).
    Arena 2000.
    """
    b = Builder()
    x = b.input("in", 400)
    a = b.node(UNARY, [x], "a", 800)
    m = b.node(UNARY, [a], "b", 1200)
    return b.graph(b.node(UNARY, [m], "out", 400))


def fan_out() -> Graph:
    """
                               ┌─► u1 ─► o1(200)   (output)
        in(100) ─► u0 ─► a(600) ┼─► u2 ─► o2(300)   (output)
                               └─► u3 ─► o3(500)   (output)

    a lives until its last reader (step 3); every output lives to the end. At step 3 a, o1, o2, o3 are all
    live: 600+200+300+500 = 1600, in every order of u1..u3. They must be side by side: 1600; `in` (step 0)
    only meets a and fits below or above it. Arena 1600.
    """
    b = Builder()
    x = b.input("in", 100)
    a = b.node(UNARY, [x], "a", 600)
    outs = [b.node(UNARY, [a], f"o{i}", size) for i, size in ((1, 200), (2, 300), (3, 500))]
    return b.graph(*outs)


def residual_block(add_op: str = INPLACE_BINARY) -> Graph:
    """
        in(100) ─► u0 ─► x(1000) ─► u1 ─► a(200) ─► u2 ─► b(1000) ─► add ─► y(1000) ─► u3 ─► out(100)
                         └──────────────────────────────────────────►┘

    add(b, x) runs in place: b dies at add, so y takes b's bytes (one buffer b+y, steps 2-4).
    Live: 0: in+x = 1100, 1: x+a = 1200, 2: x+a+b = 2200, 3: x+b/y = 2000, 4: y+out = 1100. Bound 2200.
    It fits: x [0,1000), b/y [1000,2000), a [2000,2200); in [1000,1100) (step 0, beside x);
    out [0,100) (step 4, x is dead). Arena 2200.

    With a copying add (`add_op=BINARY`) step 3 holds x, b and y: 3000 bytes, arena 3000.
    """
    b = Builder()
    i = b.input("in", 100)
    x = b.node(UNARY, [i], "x", 1000)
    a = b.node(UNARY, [x], "a", 200)
    m = b.node(UNARY, [a], "b", 1000)
    y = b.node(add_op, [m, x], "y", 1000)
    return b.graph(b.node(UNARY, [y], "out", 100))


def diamond() -> Graph:
    """Two branches of a shared tensor, joined by a concat. The model lists the nodes breadth first:

        node:  0 u0: in(100) → a(400)     1 ur: a → r(600)    2 up: a → p(1000)
               3 us: r → s(300)           4 uq: p → q(100)    5 cat: (q, s) → out(400)

                               ┌─► up ─► p(1000) ─► uq ─► q(100) ─┐
        in(100) ─► u0 ─► a(400) ┤                                  ├─► cat ─► out(400)
                               └─► ur ─► r(600)  ─► us ─► s(300) ─┘

    Peak live bytes per order (a dies at its second reader):
      model (0,1,2,3,4,5): step 2 holds a+r+p = 2000.
      r branch first (0,1,3,2,4,5): a+s+p = 1700 at step 3 (memory_greedy and depth_first pick this one:
        ur leaves fewer bytes than up, and ur has the lower index).
      p branch first (0,2,4,1,3,5): in+a 500, a+p 1400, a+p+q 1500, a+q+r 1100, q+r+s 1000, q+s+out 800.
        Peak 1500, the only order that reaches it: found by peak_search.
    Under it: a [0,400), p [400,1400), q [1400,1500); r (steps 3-4) [400,1000); s [0,300); out
    [300,700); in [400,500). Arena 1500.
    """
    b = Builder()
    x = b.input("in", 100)
    a = b.node(UNARY, [x], "a", 400)
    r = b.node(UNARY, [a], "r", 600)
    p = b.node(UNARY, [a], "p", 1000)
    s = b.node(UNARY, [r], "s", 300)
    q = b.node(UNARY, [p], "q", 100)
    return b.graph(b.node(CONCAT, [q, s], "out", 400))


def long_skip() -> Graph:
    """
        in(100) ─► u0 ─► s(300) ─► u1 ─► c1(1000) ─► u2 ─► c2(1000) ─► u3 ─► c3(1000) ─► u4 ─► c4(200) ─► cat ─► out(500)
                         └──────────────────────────────────────────────────────────────────────────►┘

    s is read by u1 and, five steps later, by cat: it stays live the whole time and must keep out of the
    way of the c1/c2/c3 ping-pong. Live: 0: in+s 400, 1: s+c1 1300, 2: s+c1+c2 2300, 3: s+c2+c3 2300,
    4: s+c3+c4 1500, 5: s+c4+out 1000. Bound 2300. It fits: s [2000,2300), c1 [0,1000), c2 [1000,2000),
    c3 [0,1000), c4 [1000,1200), out [0,500), in [0,100). Arena 2300.
    """
    b = Builder()
    x = b.input("in", 100)
    s = b.node(UNARY, [x], "s", 300)
    c1 = b.node(UNARY, [s], "c1", 1000)
    c2 = b.node(UNARY, [c1], "c2", 1000)
    c3 = b.node(UNARY, [c2], "c3", 1000)
    c4 = b.node(UNARY, [c3], "c4", 200)
    return b.graph(b.node(CONCAT, [c4, s], "out", 500))


def alias_chain() -> Graph:
    """
        in(400) ─► u0 ─► a(800) ─► r1 ─► b(800) ─► r2 ─► c(800) ─► u1 ─► out(400)

    r1 and r2 are reshapes: a, b and c are one buffer of 800 bytes live at steps 0-3.
    Live: 0: in+a = 1200, 1: 800, 2: 800, 3: c+out = 1200. It fits: a/b/c [0,800), in and out [800,1200)
    (steps 0 and 3 do not meet). Arena 1200.
    """
    b = Builder()
    x = b.input("in", 400)
    a = b.node(UNARY, [x], "a", 800)
    r = b.node(ALIAS, [a], "b", 800)
    c = b.node(ALIAS, [r], "c", 800)
    return b.graph(b.node(UNARY, [c], "out", 400))


def inplace_elementwise(op: str = INPLACE_UNARY) -> Graph:
    """
        in(100) ─► u0 ─► a(1000) ─► ip1 ─► b(1000) ─► ip2 ─► c(1000) ─► u1 ─► out(100)

    ip1 and ip2 run in place (like a ReLU): a dies at ip1, b at ip2, so a, b and c are one buffer (steps
    0-3). Live: 0: in+a = 1100, 1: 1000, 2: 1000, 3: c+out = 1100. It fits: a/b/c [0,1000), in and out
    [1000,1100). Arena 1100.

    With copying ops (`op=UNARY`) step 1 holds a and b: 2000 bytes, arena 2000.
    """
    b = Builder()
    x = b.input("in", 100)
    a = b.node(UNARY, [x], "a", 1000)
    m = b.node(op, [a], "b", 1000)
    c = b.node(op, [m], "c", 1000)
    return b.graph(b.node(UNARY, [c], "out", 100))


def scratch_buffer() -> Graph:
    """
        in(400) ─► k0 (+250 B scratch) ─► a(400) ─► k1 (+512 B scratch) ─► out(400)

    Scratch is a buffer live at its node's step only, 8-aligned and rounded up to 8: 250 → 256.
    Live: 0: in+a+256 = 1056, 1: a+out+512 = 1312. Bound 1312: a, out and k1's scratch side by side;
    in and k0's scratch (step 0) go where out and k1's scratch will be. Arena 1312.
    """
    b = Builder()
    x = b.input("in", 400)
    a = b.node(SCRATCH, [x], "a", 400, scratch=250)
    return b.graph(b.node(SCRATCH, [a], "out", 400, scratch=512))


def lagged_chain() -> Graph:
    """
        in(400) ─► L0 (delta -200) ─► a(800) ─► L1 (delta -300) ─► b(800) ─► u2 ─► out(100)

    in dies at L0 and a at L1, so each output may overlap its input from delta bytes below it on: the pair
    needs max(out, in - delta) bytes. Live: 0: in/a max(800, 600) = 800, 1: a/b max(800, 1100) = 1100,
    2: b+out = 900. Bound 1100. It fits going down the chain: b [0,800), a 300 above it [300,1100), in 200
    above a [500,900); out (step 2, beside b) [800,900). Arena 1100 (2000 without the overlaps).
    """
    b = Builder()
    x = b.input("in", 400)
    a = b.node(LAGGED, [x], "a", 800, delta=-200)
    m = b.node(LAGGED, [a], "b", 800, delta=-300)
    return b.graph(b.node(UNARY, [m], "out", 100))


def lagged_residual() -> Graph:
    """
        in(100) ─► u0 ─► x(1000) ─► L1 (delta -400) ─► a(1000) ─► L2 (delta -400) ─► b(1000) ─► add ─► out(1000)
                         └──────────────────────────────────────────────────────────────────►┘

    x is read again by add, so L1 must not write over it (no permission); a dies at L2, so b may start 400
    below a. add (a copying binary op) needs x, b and out apart. Live: 0: in+x = 1100, 1: x+a = 2000,
    2: x + a/b max(1000, 1400) = 2400, 3: x+b+out = 3000. Bound 3000, reached: x [0,1000), b [1000,2000),
    out [2000,3000); a 400 above b [1400,2400) (steps 1-2, beside x); in [1000,1100). Arena 3000.
    """
    b = Builder()
    i = b.input("in", 100)
    x = b.node(UNARY, [i], "x", 1000)
    a = b.node(LAGGED, [x], "a", 1000, delta=-400)
    m = b.node(LAGGED, [a], "b", 1000, delta=-400)
    return b.graph(b.node(BINARY, [m, x], "out", 1000))


# name -> (builder, arena worked out in its docstring)
SHAPES = {
    "linear_chain": (linear_chain, 2000),
    "fan_out": (fan_out, 1600),
    "residual_block": (residual_block, 2200),
    "diamond": (diamond, 1500),
    "long_skip": (long_skip, 2300),
    "alias_chain": (alias_chain, 1200),
    "inplace_elementwise": (inplace_elementwise, 1100),
    "scratch_buffer": (scratch_buffer, 1312),
    "lagged_chain": (lagged_chain, 1100),
    "lagged_residual": (lagged_residual, 3000),
}
