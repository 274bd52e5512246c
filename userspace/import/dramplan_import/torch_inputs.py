# SPDX-License-Identifier: GPL-2.0
"""The torch frontend's inputs: random tensors (or Python integers) for
forward(), by position or by name, on the device the trace runs on."""
import inspect

from .errors import Fail
from .spec import eval_expr


def tensor_dtype(torch, name):
    return {"float": torch.float32, "float32": torch.float32,
            "float16": torch.float32, "bfloat16": torch.float32,
            "float64": torch.float32, "int64": torch.int64,
            "int32": torch.int32, "int16": torch.int16, "int8": torch.int8,
            "uint8": torch.uint8, "bool": torch.bool}[name]


def forward_params(model):
    """forward()'s parameter names, or None if it takes **kwargs."""
    try:
        sig = inspect.signature(model.forward)
    except (TypeError, ValueError):
        return None
    names = []
    for p in sig.parameters.values():
        if p.kind == p.VAR_KEYWORD:
            return None
        if p.kind != p.VAR_POSITIONAL:
            names.append(p.name)
    return names


def embedding_high(torch, model):
    """Integer inputs are drawn below the smallest nn.Embedding's
    num_embeddings: valid token ids and positions for every table."""
    ns = [m.num_embeddings for m in model.modules()
          if isinstance(m, torch.nn.Embedding)]
    return min(ns) if ns else 2


def embedding_inputs(torch, model, count):
    """Positions of forward()'s inputs that go straight into an
    nn.Embedding (torch.fx, no shapes needed): they are token ids."""
    import torch.fx as fx
    try:
        gm = fx.symbolic_trace(model)
    except Exception:
        return set()
    out = set()
    ph = [n for n in gm.graph.nodes if n.op == "placeholder"][:count]
    for i, n in enumerate(ph):
        for u in n.users:
            if u.op == "call_module" and isinstance(
                    gm.get_submodule(u.target), torch.nn.Embedding):
                out.add(i)
            elif u.op == "call_function" and \
                    u.target is torch.nn.functional.embedding and \
                    u.args and u.args[0] is n:
                out.add(i)
    return out


def make_inputs(torch, a, model, specs, shapes, dev, values):
    """(tensors, their names or None, constant keyword arguments)."""
    high = embedding_high(torch, model)
    if specs is None:
        ids = embedding_inputs(torch, model, len(shapes))
        ts = []
        for i, sh in enumerate(shapes):
            if i in ids:
                ts.append(torch.randint(0, high, [a.batch] + list(sh),
                                        device=dev))
            else:
                ts.append(torch.randn([a.batch] + list(sh), device=dev))
        return ts, None, {}
    ts, names, consts = [], [], {}
    for sp in specs:
        if sp["dtype"] == "int":
            consts[sp["name"]] = eval_expr(sp["dims"][0], values, sp)
            continue
        shape = [eval_expr(d, values, sp) for d in sp["dims"]]
        if any(d < 1 for d in shape):
            raise Fail("input '%s' (%s): shape %s has an empty dimension"
                       % (sp["name"], sp["text"], shape))
        dt = tensor_dtype(torch, sp["dtype"])
        if dt.is_floating_point:
            t = torch.randn(shape, device=dev)
        elif dt == torch.bool:
            t = torch.randint(0, 2, shape, device=dev).to(torch.bool)
        else:
            h = eval_expr(sp["high"], values, sp) if sp["high"] else high
            if h < 1:
                raise Fail("input '%s' (%s): HIGH must be positive"
                           % (sp["name"], sp["text"]))
            t = torch.randint(0, h, shape, dtype=dt, device=dev)
        ts.append(t)
        names.append(sp["name"])
    return ts, names, consts


def check_names(model, specs, label):
    params = forward_params(model)
    if params is None:
        return
    for sp in specs:
        if sp["name"] not in params:
            raise Fail("input '%s': %s.forward() has no such parameter (it "
                       "takes %s)" % (sp["name"], type(model).__name__,
                                      ", ".join(params) or "none"))


def caller(torch, net, names, consts):
    """A module that runs net with the inputs by name (for make_fx and
    AOT autograd, which pass tensors by position)."""
    class Call(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = net

        def forward(self, *xs):
            return self.net(**dict(zip(names, xs)), **consts)
    return Call()
