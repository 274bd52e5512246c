# SPDX-License-Identifier: GPL-2.0
"""The ONNX frontend: the graph as written, one instruction a node, the
shapes from onnx's shape inference, with values folded out of constants
and the importer's own shape rules (onnx_rules.py) where it leaves a
shape open."""
import os
import sys

from .errors import Fail
from .program import Program
from .spec import SYMBOLS, eval_expr
from .writer import emit
from . import onnx_shapes

ONNX_FLOAT = (1, 10, 11, 16)	# FLOAT, FLOAT16, DOUBLE, BFLOAT16


ONNX_SIZE = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8,
             12: 4, 13: 8, 16: 2}


# ops whose output is the input's bytes (PyTorch's views): one tensor
ONNX_ALIAS = ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity")


def load_onnx():
    try:
        import onnx
        import onnx.shape_inference  # noqa: F401
    except ImportError as e:
        raise Fail("an ONNX graph needs onnx for %s (%s): install "
                   "python3-onnx (scripts/deps.sh, or apt-get install "
                   "python3-onnx)" % (sys.executable, e))
    return onnx


def onnx_node_name(n, k):
    return n.name or "%s_%d" % (n.op_type, k)


def onnx_order(graph, path):
    """The nodes in an order where every value is made before it is
    read: a cycle or a value nothing makes is an error naming a node."""
    made = set(i.name for i in graph.initializer) | \
        set(i.name for i in graph.input) | {""}
    maker = {}
    for k, n in enumerate(graph.node):
        for o in n.output:
            if o:
                maker[o] = k
    for k, n in enumerate(graph.node):
        for i in n.input:
            if i not in made and i not in maker:
                raise Fail("%s: node '%s' (%s) reads '%s', which no node, "
                           "input or initializer makes"
                           % (path, onnx_node_name(n, k), n.op_type, i))
    order, state = [], {}
    for root in range(len(graph.node)):
        if root in state:
            continue
        stack = [(root, 0)]
        state[root] = 1
        while stack:
            k, j = stack.pop()
            ins = [maker[i] for i in graph.node[k].input if i in maker]
            if j < len(ins):
                stack.append((k, j + 1))
                d = ins[j]
                if state.get(d) == 1:
                    n = graph.node[d]
                    raise Fail("%s: the graph has a cycle through node '%s' "
                               "(%s)" % (path, onnx_node_name(n, d),
                                         n.op_type))
                if d not in state:
                    state[d] = 1
                    stack.append((d, 0))
            else:
                state[k] = 2
                order.append(k)
    return order


def onnx_dims(vi):
    """[(dim_value or None, dim_param)] of a value's tensor type, or None
    if it has no tensor type or no shape."""
    t = vi.type
    if t.WhichOneof("value") != "tensor_type" or \
            not t.tensor_type.HasField("shape"):
        return None
    return [(d.dim_value if d.HasField("dim_value") else None,
             d.dim_param) for d in t.tensor_type.shape.dim]


def read_model(onnx, path):
    """The model of an ONNX file, checked: the opset, every operator
    known, no subgraph (control flow)."""
    if not os.path.isfile(path):
        raise Fail("%s: no such file" % path)
    try:
        with open(path, "rb") as f:
            m = onnx.load_model_from_string(f.read())
    except Exception as e:
        raise Fail("%s: not an ONNX model (%s: %s)"
                   % (path, type(e).__name__, e))
    if not m.graph.node:
        raise Fail("%s: the graph has no node (truncated or empty?)" % path)
    top = onnx.defs.onnx_opset_version()
    for op in m.opset_import:
        if op.domain in ("", "ai.onnx") and op.version > top:
            raise Fail("%s: opset %d is newer than this onnx's (%s, up to "
                       "opset %d)" % (path, op.version, onnx.__version__,
                                      top))
    for k, n in enumerate(m.graph.node):
        dom = "" if n.domain in ("", "ai.onnx") else n.domain
        if not onnx.defs.has(n.op_type, dom):
            raise Fail("%s: node '%s': unknown operator '%s'%s" % (
                path, onnx_node_name(n, k), n.op_type,
                " in domain '%s'" % n.domain if n.domain else ""))
        if any(at.type in (onnx.AttributeProto.GRAPH,
                           onnx.AttributeProto.GRAPHS)
               for at in n.attribute):
            raise Fail("%s: node '%s' (%s): subgraphs (control flow) are "
                       "not modelled" % (path, onnx_node_name(n, k),
                                         n.op_type))
    return m


def input_shapes(g, opts, path):
    """The graph's inputs get concrete shapes: --input, else the symbols
    (batch, seq, cache, max) their dimensions are named by."""
    inits = set(i.name for i in g.initializer)
    given = {sp["name"]: sp for sp in opts.specs}
    seq = opts.seq
    values = {"batch": opts.batch, "seq": seq, "cache": opts.cache_len or 0,
              "max": opts.max_len if opts.max_len is not None else
              (None if seq is None else seq + (opts.cache_len or 0))}
    names = [i.name for i in g.input if i.name not in inits]
    for sp in opts.specs:
        if sp["name"] not in names:
            raise Fail("input '%s': %s has no such graph input (it has %s)"
                       % (sp["name"], path, ", ".join(names) or "none"))
    for vi in g.input:
        if vi.name in inits:
            continue
        dims = onnx_dims(vi)
        if dims is None:
            raise Fail("%s: input '%s' is not a tensor with a shape"
                       % (path, vi.name))
        shape = input_shape(vi, dims, given.get(vi.name), values, path)
        sh = vi.type.tensor_type.shape
        for d, v in zip(sh.dim, shape):
            d.Clear()
            d.dim_value = v


def input_shape(vi, dims, sp, values, path):
    if sp:
        shape = [eval_expr(d, values, sp) for d in sp["dims"]]
        if len(shape) != len(dims):
            raise Fail("input '%s' (%s): the graph's input has %d "
                       "dimensions, not %d" % (vi.name, sp["text"],
                                               len(dims), len(shape)))
        return shape
    shape = []
    for v, par in dims:
        if v is None and par in SYMBOLS and values[par] is not None:
            v = values[par]
        if v is None or v < 1:
            raise Fail("%s: input '%s': dimension %d ('%s') has "
                       "no value: pass --input %s:DTYPE:SHAPE%s"
                       % (path, vi.name, len(shape), par or "?", vi.name,
                          " or --%s N" % par if par in
                          ("batch", "seq") else ""))
        shape.append(v)
    return shape


class Recorder:
    """The program of an ONNX graph: initializers are weights, the
    graph's inputs inputs, each node an instruction defining its outputs
    (an alias op's output is its input's tensor)."""

    def __init__(self, opts, info, path, const):
        self.prog = Program(None, opts.dtype)
        self.info, self.path, self.const = info, path, const
        self.tid, self.errors = {}, {}

    def tensor(self, name, where, usage):
        vi = self.info.get(name)
        dims = onnx_dims(vi) if vi is not None else None
        if dims is None or any(v is None for v, _ in dims):
            err = self.errors.get(name)
            raise Fail("%s: %s: shape inference gives no shape for '%s'%s"
                       % (self.path, where, name,
                          " (onnx: %s)" % err if err else
                          " (dimension %d unknown)" % [v for v, _ in dims]
                          .index(None) if dims else ""))
        et = vi.type.tensor_type.elem_type
        if et not in ONNX_SIZE:
            raise Fail("%s: %s: '%s' has element type %d, not a number"
                       % (self.path, where, name, et))
        elems = 1
        for v, _ in dims:
            elems *= v
        if elems == 0:
            return None
        return self.prog.new_raw(name, elems, ONNX_SIZE[et],
                                 et in ONNX_FLOAT, usage)

    def weights(self, g):
        inits = set(i.name for i in g.initializer)
        for init in g.initializer:
            elems = 1
            for d in init.dims:
                elems *= d
            if elems == 0:
                continue
            if init.data_type not in ONNX_SIZE:
                raise Fail("%s: initializer '%s' has element type %d, not a "
                           "number" % (self.path, init.name, init.data_type))
            t = self.prog.new_raw(init.name, elems, ONNX_SIZE[init.data_type],
                                  init.data_type in ONNX_FLOAT, "weight")
            self.prog.tensors[t]["module"] = True
            self.tid[init.name] = t
        for vi in g.input:
            if vi.name not in self.tid and vi.name not in inits:
                t = self.tensor(vi.name, "input '%s'" % vi.name, "input")
                if t is not None:
                    self.tid[vi.name] = t

    def node(self, n, k):
        tid = self.tid
        where = "node '%s' (%s)" % (onnx_node_name(n, k), n.op_type)
        uses = [tid[i] for i in n.input if i in tid]
        if n.op_type == "Constant" or \
                (n.output and all(o in self.const for o in n.output if o)):
            for o in n.output:
                t = self.tensor(o, where, "weight")
                if t is not None:
                    tid[o] = t
            return
        if n.op_type in ONNX_ALIAS and n.input and n.input[0] in tid:
            tid[n.output[0]] = tid[n.input[0]]
            return
        defs = []
        for o in n.output:
            t = self.tensor(o, where, "spill") if o else None
            if t is not None:
                tid[o] = t
                defs.append(t)
        if defs:
            self.prog.inst(onnx_node_name(n, k), defs, uses)


def onnx_program(opts, path):
    """The Program of an ONNX file's graph, and its base name."""
    onnx = load_onnx()
    m = read_model(onnx, path)
    order = onnx_order(m.graph, path)
    input_shapes(m.graph, opts, path)
    info, const, errors = onnx_shapes.infer(onnx, m, order, path,
                                            onnx_node_name)
    rec = Recorder(opts, info, path, const)
    rec.errors = errors
    rec.weights(m.graph)
    for k in order:
        rec.node(m.graph.node[k], k)
    prog = rec.prog
    for vi in m.graph.output:
        t = rec.tid.get(vi.name)
        if t is not None and prog.tensors[t]["usage"] == "spill":
            prog.tensors[t]["usage"] = "output"
    if not prog.insts:
        raise Fail("%s: the graph has no operation" % path)
    return prog, os.path.splitext(os.path.basename(path))[0]


def import_onnx(opts):
    """The dramplan model of an ONNX file (inference), as a dict."""
    prog, base = onnx_program(opts, opts.model)
    name = opts.name or "%s_infer_b%d" % (base, opts.batch)
    return emit(prog, name, 1, None, False)
