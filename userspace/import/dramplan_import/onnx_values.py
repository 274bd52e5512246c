# SPDX-License-Identifier: GPL-2.0
"""Values of an ONNX graph computed from constants and known shapes with
numpy (torch's exports compute positions and shapes so: Shape, Gather,
Add, Range, ...): what the frontend folds into constants and what its
own shape rules read."""


def attr(onnx, n, name, default=None):
    for at in n.attribute:
        if at.name == name:
            return onnx.helper.get_attribute_value(at)
    return default


def axes_of(onnx, n, ins):
    ax = attr(onnx, n, "axes")
    if ax is None and len(ins) > 1:
        ax = [int(x) for x in ins[1].reshape(-1)]
    return ax


def ev_constant(onnx, np, n, ins):
    from onnx import numpy_helper
    t = attr(onnx, n, "value")
    return numpy_helper.to_array(t) if t is not None else None


def np_dtype(onnx, et):
    """numpy's dtype of an ONNX element type (onnx 1.12 and later)."""
    f = getattr(onnx.helper, "tensor_dtype_to_np_dtype", None)
    return f(et) if f else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[et]


def onnx_type(onnx, dtype):
    """The ONNX element type of a numpy dtype."""
    f = getattr(onnx.helper, "np_dtype_to_tensor_dtype", None)
    return f(dtype) if f else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[dtype]


def ev_cast(onnx, np, n, ins):
    return ins[0].astype(np_dtype(onnx, attr(onnx, n, "to")))


def ev_arith(onnx, np, n, ins):
    a, b = ins
    op = n.op_type
    if op == "Div" and a.dtype.kind in "iu":
        return np.trunc(a / b).astype(a.dtype)
    return {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
            "Div": np.divide}[op](a, b).astype(a.dtype)


def ev_unsqueeze(onnx, np, n, ins):
    out = ins[0]
    for ax in sorted(axes_of(onnx, n, ins)):
        out = np.expand_dims(out, ax)
    return out


def ev_squeeze(onnx, np, n, ins):
    ax = axes_of(onnx, n, ins)
    return np.squeeze(ins[0], axis=tuple(ax) if ax else None)


def ev_reshape(onnx, np, n, ins):
    shape = [d if d != 0 else ins[0].shape[i]
             for i, d in enumerate(ins[1].tolist())]
    return ins[0].reshape(shape)


def ev_constant_of_shape(onnx, np, n, ins):
    from onnx import numpy_helper
    t = attr(onnx, n, "value")
    v = numpy_helper.to_array(t) if t is not None \
        else np.zeros(1, np.float32)
    return np.full(ins[0].tolist(), v.reshape(-1)[0], v.dtype)


def ev_slice(onnx, np, n, ins):
    x, st, en = ins[0], ins[1], ins[2]
    ax = ins[3] if len(ins) > 3 else range(len(st))
    sp = ins[4] if len(ins) > 4 else [1] * len(st)
    sl = [slice(None)] * x.ndim
    for a_, b_, c_, d_ in zip(ax, st, en, sp):
        sl[int(a_)] = slice(int(b_), int(c_), int(d_))
    return x[tuple(sl)]


def ev_expand(onnx, np, n, ins):
    shape = np.broadcast_shapes(ins[0].shape, tuple(int(d) for d in ins[1]))
    return np.broadcast_to(ins[0], shape).copy()


def ev_split(onnx, np, n, ins):
    """Every output of a Split: sizes from the input (opset 13), the
    attribute (before), or num_outputs equal parts (opset 18)."""
    axis = attr(onnx, n, "axis", 0)
    sizes = [int(d) for d in ins[1]] if len(ins) > 1 else \
        attr(onnx, n, "split")
    if not sizes:
        k = attr(onnx, n, "num_outputs") or len(n.output)
        step = -(-ins[0].shape[axis] // k)
        sizes = [min(step, ins[0].shape[axis] - i * step) for i in range(k)]
    return np.split(ins[0], np.cumsum(sizes)[:-1], axis=axis)


def ev_trilu(onnx, np, n, ins):
    k = int(ins[1].reshape(-1)[0]) if len(ins) > 1 else 0
    f = np.triu if attr(onnx, n, "upper", 1) else np.tril
    return f(ins[0], k)


BINARY = {"Less": "less", "Greater": "greater", "LessOrEqual": "less_equal",
          "GreaterOrEqual": "greater_equal", "And": "logical_and",
          "Or": "logical_or", "Xor": "logical_xor", "Min": "minimum",
          "Max": "maximum", "Pow": "power", "Mod": "mod"}
UNARY = {"Not": "logical_not", "Neg": "negative", "Abs": "absolute",
         "Floor": "floor", "Ceil": "ceil", "Sqrt": "sqrt", "Sign": "sign",
         "Identity": "asarray", "Reciprocal": "reciprocal"}


def ev_binary(onnx, np, n, ins):
    out = getattr(np, BINARY[n.op_type])(ins[0], ins[1])
    return out if out.dtype == bool else out.astype(ins[0].dtype)


def ev_unary(onnx, np, n, ins):
    return getattr(np, UNARY[n.op_type])(ins[0])


EVAL = {
    "Constant": ev_constant, "Cast": ev_cast,
    "Add": ev_arith, "Sub": ev_arith, "Mul": ev_arith, "Div": ev_arith,
    "Gather": lambda onnx, np, n, ins: np.take(
        ins[0], ins[1], axis=attr(onnx, n, "axis", 0)),
    "Unsqueeze": ev_unsqueeze, "Squeeze": ev_squeeze,
    "Concat": lambda onnx, np, n, ins: np.concatenate(
        ins, axis=attr(onnx, n, "axis")),
    "Range": lambda onnx, np, n, ins: np.arange(
        ins[0], ins[1], ins[2]).astype(ins[0].dtype),
    "Reshape": ev_reshape,
    "Equal": lambda onnx, np, n, ins: np.equal(ins[0], ins[1]),
    "Where": lambda onnx, np, n, ins: np.where(ins[0], ins[1], ins[2]),
    "ConstantOfShape": ev_constant_of_shape, "Slice": ev_slice,
    "Expand": ev_expand, "Split": ev_split, "Trilu": ev_trilu,
    "Transpose": lambda onnx, np, n, ins: np.transpose(
        ins[0], attr(onnx, n, "perm")),
    "Tile": lambda onnx, np, n, ins: np.tile(ins[0], ins[1]),
    "CumSum": lambda onnx, np, n, ins: np.cumsum(
        ins[0], axis=int(ins[1].reshape(-1)[0])),
    "Size": lambda onnx, np, n, ins: np.array(ins[0].size, np.int64),
    "ReduceProd": lambda onnx, np, n, ins: np.prod(
        ins[0], axis=tuple(attr(onnx, n, "axes")) if attr(onnx, n, "axes")
        else None, keepdims=bool(attr(onnx, n, "keepdims", 1))),
}
EVAL.update((op, ev_binary) for op in BINARY)
EVAL.update((op, ev_unary) for op in UNARY)


def evaluate(onnx, np, n, ins):
    f = EVAL.get(n.op_type)
    return f(onnx, np, n, ins) if f else None


def known(onnx, g, info, limit):
    """({value name: numpy array}, {value name: node index}) of the values
    computable from initializers, constants and known shapes, each at
    most `limit` elements; the second map holds the ones nodes compute."""
    import numpy as np
    from .onnx_front import onnx_dims
    from onnx import numpy_helper
    val, made = {}, {}
    for init in g.initializer:
        n = 1
        for d in init.dims:
            n *= d
        if n <= limit:
            val[init.name] = numpy_helper.to_array(init)
    for k, n in enumerate(list(g.node)):
        if n.op_type == "Shape":
            dims = onnx_dims(info[n.input[0]]) if n.input[0] in info \
                else None
            if dims and all(v is not None for v, _ in dims):
                sh = np.array([v for v, _ in dims], np.int64)
                st, en = attr(onnx, n, "start", 0), attr(onnx, n, "end")
                val[n.output[0]] = sh[st:en]
            continue
        ins = [val.get(i) for i in n.input if i]
        if any(x is None for x in ins):
            continue
        try:
            out = evaluate(onnx, np, n, ins)
        except Exception:
            out = None
        if out is None or np.size(out) > limit:
            continue
        val[n.output[0]] = np.asarray(out)
        made[n.output[0]] = k
    return val, made
