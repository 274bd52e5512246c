# SPDX-License-Identifier: GPL-2.0
"""The torch frontend's traces: a graph (torch.fx, make_fx's aten graph,
or AOT autograd's forward and backward graphs) run node by node on meta
tensors by a recorder that turns each node into an instruction."""
import contextlib
import io
import warnings

from .errors import Fail, where_failed
from .program import flat, storage_of
from . import registry


class RecorderMixin:
    """ShapeProp that also turns each node into an instruction.

    Every tensor value is mapped to the tensor of its storage: a node
    whose result shares storage with one of its arguments (a view,
    reshape, getitem, transpose, an in-place op) names the argument's
    tensor, so every alias of one storage is one tensor, live from
    its first definition to the last use of any alias."""

    def __init__(self, gm, prog, live_map=None, placeholder=None,
                 input_names=None):
        super().__init__(gm)
        self.torch = prog.torch
        self.prog = prog
        self.input_names = list(input_names or [])
        self.ids = {}		# node -> [(ptr, tensor id)]
        self.live_map = live_map or {}
        self.on_input = placeholder
        self.order = []		# placeholder nodes, in order

    def run_node(self, n):
        argmap = {}
        for a in n.all_input_nodes:
            for ptr, tid in self.ids.get(a, []):
                argmap.setdefault(ptr, tid)
        try:
            res = super().run_node(n)
        except Exception as e:
            at = "node '%s' (%s %s): " % (n.name, n.op, target_name(n))
            if isinstance(registry.unwrap(e), Fail):
                raise registry.unwrap(e)
            raise registry.failure(e, at) or \
                Fail(at + where_failed(registry.unwrap(e)))
        out, defs = self.results(n, res, argmap)
        self.ids[n] = out
        if n.op == "placeholder":
            self.order.append(n)
        if defs and n.op not in ("placeholder", "get_attr", "output"):
            self.instruction(n, defs, list(argmap.values()), res)
        return res

    def results(self, n, res, argmap):
        """[(storage, tensor id)] of a node's tensors, and the ones it
        defines (new tensors, arguments it writes in place)."""
        torch = self.torch
        out, defs = [], []
        for i, t in enumerate(flat(torch, res)):
            if t.layout != torch.strided:
                raise Fail("node '%s' (%s %s): unsupported tensor layout "
                           "%s" % (n.name, n.op, target_name(n),
                                   t.layout))
            if t.numel() == 0:
                continue
            ptr, _ = storage_of(t)
            tid, new = self.tensor_of(n, i, t, ptr, argmap)
            if new or (ptr in argmap and
                       writes_in_place(n, self.module)):
                defs.append(tid)
            out.append((ptr, tid))
        return out, defs

    def tensor_of(self, n, i, t, ptr, argmap):
        """(tensor id, whether the node makes it) of result i."""
        prog = self.prog
        if ptr in argmap:
            return argmap[ptr], False
        if ptr in prog.weights:
            return prog.weights[ptr], False
        if n.op == "get_attr":
            tid = prog.new_tensor(n.name, t, "weight")
            prog.weights[ptr] = tid
            return tid, False
        if ptr in self.live_map:
            return self.live_map[ptr], False
        if n.op == "placeholder" and self.on_input:
            return self.on_input(n, t), False
        if n.op == "placeholder":
            return prog.new_tensor(self.input_names.pop(0)
                                   if self.input_names else n.name,
                                   t, "input"), False
        tid = prog.new_tensor(n.name if i == 0 else "%s.%d" % (n.name, i),
                              t)
        if str(n.target).startswith("dramplan.all_reduce"):
            prog.tensors[tid]["collective"] = True
        return tid, True

    def instruction(self, n, defs, uses, res):
        """The node's instruction (or the steps a registry expander
        makes of it); a leaf module also uses its weights."""
        prog = self.prog
        if n.op == "call_module":
            sub = self.module.get_submodule(n.target)
            for t in list(sub.parameters()) + list(sub.buffers()):
                ptr, _ = storage_of(t)
                if ptr in prog.weights:
                    uses.append(prog.weights[ptr])
        expand = registry.expander(n)
        if expand is not None:
            expand(self, n, defs, uses, res)
        else:
            prog.inst(n.name, defs, uses)

    def propagate(self, *args):
        # ShapeProp prints a traceback of a failing node on stderr;
        # the one line raised from run_node says it all
        with contextlib.redirect_stderr(io.StringIO()):
            return super().propagate(*args)

    def tids(self, n):
        return [tid for _, tid in self.ids.get(n, [])]


def recorder_class(torch):
    """The recorder: RecorderMixin over torch.fx's ShapeProp (loaded with
    PyTorch)."""
    from torch.fx.passes.shape_prop import ShapeProp

    class Recorder(RecorderMixin, ShapeProp):
        pass
    return Recorder


def target_name(n):
    t = n.target
    if isinstance(t, str):
        return t
    return getattr(t, "__name__", None) or str(t)


def writes_in_place(n, module):
    """Does node n write an argument's storage (not just view it)?"""
    if n.op == "call_module":
        sub = module.get_submodule(n.target)
        return bool(getattr(sub, "inplace", False))
    if n.kwargs.get("inplace"):
        return True
    return any(p.endswith("_") and not p.endswith("__")
               for p in str(n.target).split("."))


def hides_ops(torch, model):
    """A torch.nn module that torch.fx keeps as one node but that computes
    several tensors: attention, transformer layers, recurrent layers."""
    nn = torch.nn
    for m in model.modules():
        if not type(m).__module__.startswith("torch.nn."):
            continue
        if isinstance(m, (nn.Sequential, nn.ModuleList, nn.ModuleDict)):
            continue
        if isinstance(m, (nn.MultiheadAttention, nn.RNNBase)) or \
                any(True for _ in m.children()):
            return type(m).__name__
    return None


def trace_graph(torch, model, call, inputs, label, mode, rules):
    """torch.fx.symbolic_trace (mode fx), or make_fx's aten graph (mode
    aten, and where Python code needs concrete shapes: x.shape unpacked,
    as torchvision's ViT does)."""
    import torch.fx as fx
    from torch.fx.experimental.proxy_tensor import make_fx
    first = None
    if mode == "fx":
        try:
            return fx.symbolic_trace(model)
        except Exception as e:
            first = "cannot trace (torch.fx.symbolic_trace): %s" \
                % where_failed(e)
    try:
        with warnings.catch_warnings(), rules():
            warnings.simplefilter("ignore")
            return make_fx(call)(*inputs)
    except Exception as e:
        raise registry.failure(e, label + ": ") or \
            Fail("%s: %s" % (label, first or "cannot trace (make_fx): " +
                             where_failed(e)))


def trace_inference(torch, model, call, inputs, prog, label, mode,
                    names=None, rules=contextlib.nullcontext):
    """The inference graph run by the recorder on the inputs' device (meta
    tensors cost no arithmetic).  call(*inputs) runs the model; rules()
    is the registry's mode, active while ops run."""
    model.eval()
    gm = trace_graph(torch, model, call, inputs, label, mode, rules)
    prog.add_weights(model)
    Recorder = recorder_class(torch)
    rec = Recorder(gm, prog, input_names=names)
    with torch.no_grad(), rules():
        rec.propagate(*inputs)
    outs = []
    for n in gm.graph.nodes:
        if n.op == "output":
            outs = rec.tids(n)
    for tid in outs:
        if prog.tensors[tid]["usage"] == "spill":
            prog.tensors[tid]["usage"] = "output"
    return len([n for n in gm.graph.nodes])


def compilers(torch, prog, names, state, tangents):
    """AOT autograd's forward and backward compilers: each runs its graph
    through a recorder and keeps what the loss and the gradients need."""
    from functorch.compile import make_boxed_func
    Recorder = recorder_class(torch)

    def fw_compiler(gm, example):
        state["nodes"] += len(gm.graph.nodes)

        def run(*args):
            rec = Recorder(gm, prog, input_names=names)
            res = rec.propagate(*args)
            state["fw"] = rec
            state["primals"] = [rec.tids(p) for p in rec.order]
            for n in gm.graph.nodes:
                if n.op == "output":
                    state["fw_outs"] = [rec.ids.get(a, []) if a is not None
                                        else [] for a in n.args[0]]
            state["boundary"] = len(prog.insts)
            return res
        return make_boxed_func(run)

    def bw_compiler(gm, example):
        state["nodes"] += len(gm.graph.nodes)

        def run(*args):
            live = {}
            for ids in state["fw_outs"]:
                for ptr, tid in ids:
                    live.setdefault(ptr, tid)

            def placeholder(n, t):
                tid = prog.new_tensor(n.name, t)
                tangents.append(tid)
                return tid
            rec = Recorder(gm, prog, live, placeholder)
            res = rec.propagate(*args)
            state["bw"] = rec
            for n in gm.graph.nodes:
                if n.op == "output":
                    state["grads"] = [rec.tids(a) if a is not None else []
                                      for a in n.args[0]]
            return res
        return make_boxed_func(run)
    return fw_compiler, bw_compiler


def run_step(torch, model, inputs, fw, bw, label):
    """One forward and backward through aot_module (a sum of the outputs
    as the loss)."""
    from functorch.compile import aot_module
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cm = aot_module(model, fw, bw)
            out = cm(*inputs)
            outs = [t for t in flat(torch, out) if t.requires_grad]
            if not outs:
                raise Fail("%s: --train: the output does not depend on any "
                           "parameter" % label)
            loss = sum(t.float().sum() for t in outs)
            loss.backward()
        except Fail:
            raise
        except Exception as e:
            raise registry.failure(e, label + ": ") or \
                Fail("%s: cannot trace a training step "
                     "(functorch.compile.aot_module): %s"
                     % (label, where_failed(e)))


def trace_training(torch, model, inputs, prog, label, owner=None,
                   names=None):
    """One training step: the forward's instructions, a `loss` that reads
    the forward's outputs and defines their gradients (the backward's
    tangents), the backward's.  Returns [(parameter, gradient)] tensor
    ids and the graphs' node count."""
    try:
        import functorch.compile  # noqa: F401 (present?)
    except ImportError as e:
        raise Fail("--train needs functorch.compile (PyTorch 1.13 or "
                   "later): %s" % e)
    model.train()
    if inputs and inputs[0].device.type == "meta":
        registry.meta_conv_backward(torch)
    prog.add_weights(owner or model)
    state = {"fw": None, "bw": None, "fw_outs": [], "primals": [],
             "boundary": None, "nodes": 0}
    tangents = []
    fw, bw = compilers(torch, prog, names, state, tangents)
    run_step(torch, model, inputs, fw, bw, label)
    if state["fw"] is None or state["bw"] is None:
        raise Fail("%s: --train: AOT autograd produced no backward graph"
                   % label)
    n_user = len(tangents)
    user = [tid for ids in state["fw_outs"][:n_user] for _, tid in ids]
    loss_inst = {"name": prog.unique("loss", prog.inames),
                 "defs": list(dict.fromkeys(tangents)),
                 "uses": list(dict.fromkeys(user))}
    prog.insts.insert(state["boundary"], loss_inst)
    # the backward's output i is the gradient of the forward's input i
    # (parameters, buffers, then the network's inputs)
    grads = []
    for prim, g in zip(state["primals"], state["grads"]):
        if prim and g and prim[0] in prog.param_of:
            grads.append((prim[0], g[0]))
    return grads, state["nodes"]


def fast_names(torch):
    """torch.fx's _Namespace.create_name (PyTorch 1.13) finds a free name
    base_N by counting N up from 1 each time: quadratic in the nodes of
    one base (a loop's steps, a deep network's layers).  This one gives
    the same names, counting from the longest run base_1..base_h known to
    be taken (names are never released); applied once per process."""
    ns = getattr(torch.fx.graph, "_Namespace", None)
    if ns is None or getattr(ns, "_dramplan_fast", False) or not all(
            hasattr(ns, a) for a in ("create_name", "_is_illegal_name")):
        return
    original = ns.create_name

    def create_name(self, candidate, obj):
        if not hasattr(self, "_used_names") or \
                not hasattr(self, "_name_suffix_regex"):
            return original(self, candidate, obj)
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        candidate = self._illegal_char_regex.sub("_", candidate)
        if candidate[0].isdigit():
            candidate = "_" + candidate
        match = self._name_suffix_regex.match(candidate)
        base, num = (candidate, 0) if match is None else \
            (match.group(1), int(match.group(2)))
        used = self._used_names
        if candidate in used or self._is_illegal_name(candidate, obj):
            hints = self.__dict__.setdefault("_dramplan_hint", {})
            h = hints.get(base, 0)
            while "%s_%d" % (base, h + 1) in used:
                h += 1
            hints[base] = h
            num = max(num, h) + 1
            candidate = "%s_%d" % (base, num)
            while candidate in used or self._is_illegal_name(candidate, obj):
                num += 1
                candidate = "%s_%d" % (base, num)
        used.setdefault(candidate, 0)
        if obj is None:
            self._unassociated_names.add(candidate)
        else:
            self._obj_to_name[obj] = candidate
        return candidate
    ns.create_name = create_name
    ns._dramplan_fast = True
