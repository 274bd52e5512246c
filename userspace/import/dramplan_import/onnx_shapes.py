# SPDX-License-Identifier: GPL-2.0
"""The ONNX frontend's shape engine: one pass over the nodes in order,
each output's element type and dimensions (and its value, where it is
small and computable from constants and known shapes: the position and
shape arithmetic of torch's exports).  A node's shapes come from its
value, else the importer's own rule (onnx_rules.py), else onnx's
inference of that node alone, its inputs' shapes and values given."""
from .errors import Fail, first_line
from .registry import ONNX_RULES
from . import onnx_rules, onnx_values

FOLD_MAX = 4096		# elements of a value worth computing (shape data)


class Engine:
    def __init__(self, onnx, m, path):
        import numpy as np
        self.onnx, self.np, self.path = onnx, np, path
        self.opsets = list(m.opset_import)
        self.types = {}		# value name -> (element type, dims)
        self.values = {}	# value name -> numpy array (small ones)
        self.const = set()	# values computed from constants alone
        self.errors = {}	# value name -> onnx's inference error
        from onnx import numpy_helper
        for init in m.graph.initializer:
            self.types[init.name] = (init.data_type, list(init.dims))
            self.const.add(init.name)
            if size(init.dims) <= FOLD_MAX:
                self.values[init.name] = numpy_helper.to_array(init)
        for vi in m.graph.input:
            tt = vi.type.tensor_type
            if vi.name not in self.types and tt.HasField("shape"):
                self.types[vi.name] = (tt.elem_type, [
                    d.dim_value if d.HasField("dim_value") else None
                    for d in tt.shape.dim])

    def attr(self, n, name, default=None):
        return onnx_values.attr(self.onnx, n, name, default)

    def shape(self, name):
        t = self.types.get(name)
        if t is None or t[1] is None or any(d is None for d in t[1]):
            return None
        return t[1]

    def elem(self, name):
        t = self.types.get(name)
        return t[0] if t else 0

    def value(self, name):
        v = self.values.get(name)
        return None if v is None else v.reshape(-1)

    def node(self, n, where):
        """Shapes (and values) of node n's outputs."""
        if n.op_type in onnx_rules.REFUSED:
            raise Fail("%s: %s: its output shape depends on tensor values "
                       "(%s): not imported; export a fixed-size form"
                       % (self.path, where, onnx_rules.REFUSED[n.op_type]))
        if self.evaluate(n):
            return
        rule = ONNX_RULES.get(n.op_type)
        outs = rule(self, n) if rule else None
        if outs is None:
            outs = self.alone(n)
        for o, t in zip([o for o in n.output if o], outs or []):
            if t is not None:
                self.types[o] = t

    def evaluate(self, n):
        """A small output computable from its inputs' values (or a
        Shape of a known shape): the value, and its shape."""
        np = self.np
        if n.op_type == "Shape":
            sh = self.shape(n.input[0])
            if sh is None:
                return False
            st, en = self.attr(n, "start", 0), self.attr(n, "end")
            out = np.array(sh, np.int64)[st:en]
        else:
            ins = [self.values.get(i) for i in n.input if i]
            if any(x is None for x in ins) or \
                    n.op_type not in onnx_values.EVAL:
                return False
            try:
                out = onnx_values.evaluate(self.onnx, np, n, ins)
            except Exception:
                return False
            if out is None:
                return False
        outs = out if isinstance(out, list) else [out]
        if any(np.size(x) > FOLD_MAX for x in outs):
            return False
        const = all(i in self.const for i in n.input if i) or \
            n.op_type in ("Constant", "Shape")
        for name, x in zip([o for o in n.output if o], outs):
            x = np.asarray(x)
            self.values[name] = x
            self.types[name] = (onnx_values.onnx_type(self.onnx, x.dtype),
                                list(x.shape))
            if const:
                self.const.add(name)
        return True

    def alone(self, n):
        """onnx's shape inference of node n alone, its inputs' shapes and
        its small inputs' values given: [(element type, dims)] or None."""
        onnx, h = self.onnx, self.onnx.helper
        from onnx import numpy_helper
        inputs, inits = [], []
        if any(i and i not in self.types for i in n.input):
            return None		# onnx's inference would crash
        for i in dict.fromkeys(x for x in n.input if x):
            if i in self.values:
                inits.append(numpy_helper.from_array(self.values[i], i))
            elif i in self.types:
                et, dims = self.types[i]
                inputs.append(h.make_tensor_value_info(i, et, dims))
        outs = [h.make_empty_tensor_value_info(o) for o in n.output if o]
        g = h.make_graph([n], "node", inputs, outs, inits)
        m = h.make_model(g, opset_imports=self.opsets)
        try:
            m = onnx.shape_inference.infer_shapes(m, strict_mode=True,
                                                  data_prop=True)
        except Exception as e:
            msg = first_line(e).split("] ")[-1]
            self.errors.update((o, msg) for o in n.output if o)
            return None
        return [out_type(vi) for vi in m.graph.output]


def out_type(vi):
    tt = vi.type.tensor_type
    if not vi.type.HasField("tensor_type") or not tt.HasField("shape"):
        return None
    return (tt.elem_type, [d.dim_value if d.HasField("dim_value") else None
                           for d in tt.shape.dim])


def size(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def infer(onnx, m, order, path, node_name):
    """The engine run over the graph: {value name: ValueInfoProto} with
    every shape it found, and the set of values computed from constants
    alone (folded: no instruction)."""
    eng = Engine(onnx, m, path)
    g = m.graph
    for k in order:
        n = g.node[k]
        eng.node(n, "node '%s' (%s)" % (node_name(n, k), n.op_type))
    h = onnx.helper
    info = {}
    for name, (et, dims) in eng.types.items():
        info[name] = h.make_tensor_value_info(
            name, et, [d if d is not None else "?" for d in dims])
    return info, eng.const, eng.errors
