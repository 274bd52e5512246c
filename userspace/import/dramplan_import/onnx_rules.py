# SPDX-License-Identifier: GPL-2.0
"""The ONNX frontend's own shape rules (registry.py's @onnx_rule), for
the ops whose shapes onnx's inference leaves open or gets wrong on
today's decoder exports (onnx 1.12: Einsum gives unknown dimensions, an
Expand of a computed shape a scalar).  A rule takes the engine (its
shapes and values) and the node, and returns each output's (element
type, dims), or None to leave the node to onnx.

ONNX ops refused: their output shape depends on tensor values."""
from .registry import onnx_rule

REFUSED = {
    "NonZero": "the number of non-zero elements",
    "Unique": "the number of distinct values",
    "Compress": "the number of selected elements",
    "NonMaxSuppression": "the number of boxes kept",
    "StringNormalizer": "strings",
}


def broadcast(*shapes):
    """numpy's broadcast of shapes (lists of ints)."""
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = [s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0]
        big = [d for d in dims if d != 1]
        if len(set(big)) > 1:
            raise ValueError("shapes %s do not broadcast" % (shapes,))
        out.append(big[0] if big else 1)
    return out


@onnx_rule("Einsum")
def einsum(eng, n):
    """The output's letters take the inputs' dimensions; with no '->',
    the letters used once, in order."""
    eq = eng.attr(n, "equation").decode().replace(" ", "") \
        if isinstance(eng.attr(n, "equation"), bytes) else \
        eng.attr(n, "equation").replace(" ", "")
    ins = [eng.shape(i) for i in n.input]
    if any(s is None for s in ins) or "..." in eq:
        return None
    lhs, _, rhs = eq.partition("->")
    size = {}
    for term, shape in zip(lhs.split(","), ins):
        for letter, d in zip(term, shape):
            size[letter] = max(size.get(letter, 1), d)
    if not _:
        letters = lhs.replace(",", "")
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return [(eng.elem(n.input[0]), [size[c] for c in rhs])]


@onnx_rule("Expand")
def expand(eng, n):
    shape, target = eng.shape(n.input[0]), eng.value(n.input[1])
    if shape is None or target is None:
        return None
    return [(eng.elem(n.input[0]), broadcast(shape, [int(d) for d in target]))]


@onnx_rule("Reshape")
def reshape(eng, n):
    shape, target = eng.shape(n.input[0]), eng.value(n.input[1])
    if shape is None or target is None:
        return None
    dims = [int(d) for d in target]
    if not eng.attr(n, "allowzero", 0):
        dims = [shape[i] if d == 0 else d for i, d in enumerate(dims)]
    total = 1
    for d in shape:
        total *= d
    known = 1
    for d in dims:
        known *= d if d != -1 else 1
    dims = [total // known if d == -1 else d for d in dims]
    return [(eng.elem(n.input[0]), dims)]


@onnx_rule("Range")
def range_(eng, n):
    start, limit, delta = (eng.value(i) for i in n.input)
    if start is None or limit is None or delta is None:
        return None
    import math
    count = max(0, int(math.ceil((float(limit) - float(start)) /
                                 float(delta))))
    return [(eng.elem(n.input[0]), [count])]


@onnx_rule("Trilu", "CumSum")
def same_shape(eng, n):
    shape = eng.shape(n.input[0])
    return None if shape is None else [(eng.elem(n.input[0]), shape)]


@onnx_rule("Where")
def where(eng, n):
    shapes = [eng.shape(i) for i in n.input]
    if any(s is None for s in shapes):
        return None
    return [(eng.elem(n.input[1]), broadcast(*shapes))]


@onnx_rule("ConstantOfShape")
def constant_of_shape(eng, n):
    target = eng.value(n.input[0])
    if target is None:
        return None
    t = eng.attr(n, "value")
    return [(t.data_type if t is not None else 1, [int(d) for d in target])]
