#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""dramplan-import - a PyTorch network as a dramplan model (JSON).

    dramplan-import [options] NAME|FILE.py[:ATTR] [-o MODEL.json]

NAME is a torchvision model (resnet18, vit_b_16, ...); FILE.py is a Python
file that exports an nn.Module (see --help).  The network runs once on a
random input with random weights: shapes and byte sizes come from that run,
no weights or data sets are needed.

Inference: torch.fx.symbolic_trace + ShapeProp, nodes in program order.
Training (--train): one step's forward and backward graphs from
functorch.compile.aot_module, joined on one core; --cores N repeats the
step on N cores and all-reduces the gradients through shared tensors.

Exit status: 0 success, 1 an error (one line on stderr, nothing written),
2 a usage error.  docs/dramplan-import.md says how each graph value becomes
a tensor.
"""
import argparse
import contextlib
import copy
import io
import json
import os
import stat
import sys
import tempfile
import traceback
import warnings

PROG = "dramplan-import"
PAGE = 4096


class Fail(Exception):
    """An error of the input or the network: exit 1."""


class Usage(Exception):
    """A usage error: exit 2."""


def one_line(s):
    """Messages are one line: control characters escaped."""
    s = str(s)
    out = []
    for ch in s:
        if ch == "\n":
            out.append("\\n")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out).strip()


# ---------------------------------------------------------------------------
# command line

class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Usage(message)


def parse_args(argv):
    p = Parser(prog=PROG, add_help=False,
               description="Write a dramplan model (JSON) for a PyTorch "
               "network: a torchvision model NAME or FILE.py[:ATTR].")
    p.add_argument("model", metavar="NAME|FILE.py[:ATTR]",
                   help="a torchvision model name (see --list), or a Python "
                   "file; ATTR (default: `model`, then `make_model()`, then "
                   "the one nn.Module class the file defines) is an "
                   "nn.Module, an nn.Module class or a function returning one")
    p.add_argument("-o", "--output", default="-", metavar="FILE",
                   help="the model JSON (default -, standard output); "
                   "written like dramplan's outputs")
    p.add_argument("--input-shape", action="append", metavar="C,H,W",
                   help="one input's shape without the batch dimension "
                   "(repeat for several inputs; default: the model's usual "
                   "image, 3,224,224 or 3,299,299)")
    p.add_argument("--batch", type=int, default=1, metavar="N",
                   help="batch size (default 1)")
    p.add_argument("--dtype", default="float32",
                   choices=["float32", "float16", "bfloat16", "float64"],
                   help="element type of floating tensors in the model "
                   "(default float32; the network runs in float32, sizes "
                   "use this type)")
    p.add_argument("--train", action="store_true",
                   help="one training step (forward, loss, backward) "
                   "instead of inference")
    p.add_argument("--cores", type=int, default=1, metavar="N",
                   help="(--train) data parallel on N cores: gradients "
                   "all-reduced through tensors shared across cores")
    p.add_argument("--sgd", action="store_true",
                   help="(--train) end the step with an SGD update of each "
                   "parameter from its gradient")
    p.add_argument("--name", metavar="NAME",
                   help="the model's name in the JSON (default: derived)")
    p.add_argument("--seed", type=int, default=0,
                   help="random seed of the weights and input (default 0)")
    p.add_argument("--device", default="auto",
                   choices=["auto", "meta", "cpu"],
                   help="where the network runs: meta tensors (shapes only, "
                   "no arithmetic) or the CPU; auto (default): meta, then "
                   "the CPU if an op has no meta kernel")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="torch CPU threads (default 1)")
    p.add_argument("--list", action="store_true",
                   help="list the torchvision model names and exit")
    p.add_argument("-h", "--help", action="help",
                   help="show this help and exit")
    p.add_argument("-V", "--version", action="store_true",
                   help="print the version and exit")
    if "-V" in argv or "--version" in argv:
        return argparse.Namespace(version=True)
    if "--list" in argv:
        return argparse.Namespace(version=False, list=True)
    a = p.parse_args(argv)
    if a.batch < 1:
        raise Usage("--batch: must be positive")
    if a.cores < 1:
        raise Usage("--cores: must be positive")
    if a.threads < 1:
        raise Usage("--threads: must be positive")
    if a.cores > 1 and not a.train:
        raise Usage("--cores N needs --train (data parallel training)")
    if a.sgd and not a.train:
        raise Usage("--sgd needs --train")
    shapes = []
    for s in a.input_shape or []:
        try:
            dims = [int(x) for x in s.split(",") if x.strip() != ""]
        except ValueError:
            raise Usage("--input-shape: \"%s\" is not a list of integers "
                        "like 3,224,224" % s)
        if any(d < 1 for d in dims):
            raise Usage("--input-shape: \"%s\": dimensions must be "
                        "positive" % s)
        shapes.append(dims)
    a.shapes = shapes
    return a


def version():
    v = "@VERSION@"		# the build's copy has it filled in
    if v.startswith("@"):	# run from the source tree
        f = os.path.join(os.path.dirname(os.path.realpath(__file__)),
                         "..", "..", "VERSION")
        try:
            with open(f) as fh:
                v = fh.read().strip()
        except OSError:
            pass
    return v


# ---------------------------------------------------------------------------
# PyTorch, loaded on demand so a machine without it gets one line

def load_torch():
    try:
        import torch  # noqa: F401
        import torch.fx  # noqa: F401
    except ImportError as e:
        raise Fail("needs PyTorch for %s (%s): install python3-torch and "
                   "python3-torchvision (scripts/deps.sh, or apt-get install "
                   "python3-torch python3-torchvision)"
                   % (sys.executable, e))
    return torch


def torchvision_models():
    try:
        import torchvision.models as tvm
    except ImportError as e:
        raise Fail("a torchvision model needs torchvision (%s): install "
                   "python3-torchvision" % e)
    names = []
    for mod in (tvm, getattr(tvm, "segmentation", None)):
        if mod is None:
            continue
        for n in dir(mod):
            f = getattr(mod, n)
            if n.startswith("_") or not callable(f) or isinstance(f, type):
                continue
            if n[0].islower() and n not in ("get_model", "get_weight",
                                            "list_models", "get_model_weights",
                                            "get_model_builder"):
                names.append(n)
    return tvm, sorted(set(names))


def default_shape(name):
    if name.startswith("inception") or name.startswith("googlenet_"):
        return [3, 299, 299]
    return [3, 224, 224]


def build_module(torch, spec):
    """(module, name, input shapes or None) for a model argument."""
    path, attr = spec, ""
    if ".py:" in spec:
        path, attr = spec.rsplit(".py:", 1)
        path += ".py"
    if path.endswith(".py"):
        return from_file(torch, path, attr)
    tvm, names = torchvision_models()
    if spec not in names:
        raise Fail("%s: not a torchvision model and not a .py file "
                   "(dramplan-import --list names the models)" % spec)
    kw = {}
    if spec.startswith("inception") or spec == "googlenet":
        kw["aux_logits"] = False
        kw["init_weights"] = False
    try:
        m = getattr(tvm, spec)(weights=None, **kw)
    except TypeError:
        m = getattr(tvm, spec)(**kw)
    return m, spec, [default_shape(spec)]


def from_file(torch, path, attr):
    import importlib.util
    nn = torch.nn
    if not os.path.isfile(path):
        raise Fail("%s: no such file" % path)
    base = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location("dramplan_user_" + base,
                                                  path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(mod)
    except Exception as e:
        raise Fail("%s: %s" % (path, where_failed(e)))
    finally:
        sys.path.pop(0)
    cands = [attr] if attr else ["model", "make_model", "get_model"]
    obj = None
    for c in cands:
        if hasattr(mod, c):
            obj, attr = getattr(mod, c), c
            break
    if obj is None and attr:
        raise Fail("%s: defines no \"%s\"" % (path, attr))
    if obj is None:
        classes = [v for v in vars(mod).values()
                   if isinstance(v, type) and issubclass(v, nn.Module)
                   and v.__module__ == mod.__name__]
        if len(classes) != 1:
            raise Fail("%s: exports no `model` or `make_model`, and defines "
                       "%d nn.Module classes (name one: %s:ATTR)"
                       % (path, len(classes), path))
        obj, attr = classes[0], classes[0].__name__
    try:
        if isinstance(obj, nn.Module):
            m = obj
        elif callable(obj):
            m = obj()
        else:
            m = None
    except Exception as e:
        raise Fail("%s:%s(): %s" % (path, attr, where_failed(e)))
    if not isinstance(m, nn.Module):
        raise Fail("%s:%s is not an nn.Module, an nn.Module class or a "
                   "function returning one" % (path, attr))
    shapes = getattr(mod, "input_shapes", None) or getattr(mod, "input_shape",
                                                           None)
    if shapes and isinstance(shapes[0], int):
        shapes = [shapes]
    return m, base, [list(s) for s in shapes] if shapes else None


def where_failed(e):
    """The exception and the innermost frame outside torch itself."""
    tb = traceback.extract_tb(e.__traceback__)
    frame = None
    for fr in tb:
        if "/torch/" not in fr.filename and "/functorch/" not in fr.filename \
                and fr.filename != __file__:
            frame = fr
    msg = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
    if frame:
        return "%s:%d in %s: %s" % (frame.filename, frame.lineno, frame.name,
                                    msg)
    return msg


# ---------------------------------------------------------------------------
# the program: tensors and instructions of one core

NAME_MAX = 63	# the device's tensor names (uapi XMEMSIM_NAME_LEN, NUL included)


def short(name):
    """A tensor name the device takes: one longer than NAME_MAX bytes keeps
    its head and gets a hash of the whole
    (allreduce.encoder.layers.encoder_layer_11.self_attention.out_proj.weight
    -> allreduce.encoder.layers.encoder_layer_11.self_atten~1b2c3d4e)."""
    if len(name.encode()) <= NAME_MAX:
        return name
    import hashlib
    h = hashlib.sha1(name.encode()).hexdigest()[:8]
    head = name.encode()[:NAME_MAX - 9].decode("utf-8", "ignore")
    return head + "~" + h


def align(n):
    return (n + PAGE - 1) // PAGE * PAGE


class Program:
    def __init__(self, torch, dtype):
        self.torch = torch
        self.fsize = {"float32": 4, "float16": 2, "bfloat16": 2,
                      "float64": 8}[dtype]
        self.tensors = []	# dicts: name, elems, elem_size, usage
        self.names = set()
        self.insts = []		# dicts: name, defs, uses (tensor ids)
        self.inames = set()
        self.weights = {}	# storage ptr -> tensor id (params, buffers)
        self.param_of = {}	# tensor id -> parameter name

    def unique(self, name, taken):
        n, k = name, 2
        while n in taken:
            n = short("%s#%d" % (name, k))
            k += 1
        taken.add(n)
        return n

    def new_tensor(self, name, t, usage="spill"):
        ptr, nbytes = storage_of(t)
        esize = self.fsize if t.is_floating_point() else t.element_size()
        elems = max(1, nbytes // t.element_size())
        self.tensors.append({"name": self.unique(short(name), self.names),
                             "elems": elems, "elem_size": esize,
                             "usage": usage})
        return len(self.tensors) - 1

    def add_weights(self, module):
        seen = set()
        for kind, items in (("param", module.named_parameters()),
                            ("buffer", module.named_buffers())):
            for qn, t in items:
                if t is None or t.numel() == 0:
                    continue
                ptr, _ = storage_of(t)
                if ptr in seen:
                    continue	# tied weights: one tensor
                seen.add(ptr)
                tid = self.new_tensor(qn, t, "weight")
                self.weights[ptr] = tid
                if kind == "param" and t.requires_grad:
                    self.param_of[tid] = qn

    def inst(self, name, defs, uses, collective=False):
        d = {"name": self.unique(name, self.inames),
             "defs": list(dict.fromkeys(defs)),
             "uses": list(dict.fromkeys(uses))}
        if collective:
            d["collective"] = True
        self.insts.append(d)
        return d


def storage_of(t):
    """(identity, bytes) of a tensor's storage.  The identity is the
    StorageImpl's address, which meta tensors (no data) have too."""
    if hasattr(t, "untyped_storage"):
        s = t.untyped_storage()
    else:
        s = t.storage()
        s = s.untyped() if hasattr(s, "untyped") else s
    key = getattr(s, "_cdata", None) or s.data_ptr()
    return key, s.nbytes()


def flat(torch, v):
    """The tensors in a value (tuples, lists, dicts), in order."""
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in flat(torch, x)]
    if isinstance(v, dict):
        return [t for x in v.values() for t in flat(torch, x)]
    return []


def recorder_class(torch):
    from torch.fx.passes.shape_prop import ShapeProp

    class Recorder(ShapeProp):
        """ShapeProp that also turns each node into an instruction.

        Every tensor value is mapped to the tensor of its storage: a node
        whose result shares storage with one of its arguments (a view,
        reshape, getitem, transpose, an in-place op) names the argument's
        tensor, so every alias of one storage is one tensor, live from
        its first definition to the last use of any alias."""

        def __init__(self, gm, prog, live_map=None, placeholder=None):
            super().__init__(gm)
            self.prog = prog
            self.ids = {}		# node -> [(ptr, tensor id)]
            self.live_map = live_map or {}
            self.on_input = placeholder
            self.order = []		# placeholder nodes, in order

        def run_node(self, n):
            prog = self.prog
            argmap = {}
            for a in n.all_input_nodes:
                for ptr, tid in self.ids.get(a, []):
                    argmap.setdefault(ptr, tid)
            try:
                res = super().run_node(n)
            except Fail:
                raise
            except Exception as e:
                raise Fail("node '%s' (%s %s): %s" % (
                    n.name, n.op, target_name(n), where_failed(e)))
            out, defs = [], []
            for i, t in enumerate(flat(torch, res)):
                if t.layout != torch.strided:
                    raise Fail("node '%s' (%s %s): unsupported tensor layout "
                               "%s" % (n.name, n.op, target_name(n),
                                       t.layout))
                if t.numel() == 0:
                    continue
                ptr, _ = storage_of(t)
                if ptr in argmap:
                    tid = argmap[ptr]
                    if writes_in_place(n, self.module):
                        defs.append(tid)
                elif ptr in prog.weights:
                    tid = prog.weights[ptr]
                elif n.op == "get_attr":
                    tid = prog.new_tensor(n.name, t, "weight")
                    prog.weights[ptr] = tid
                elif ptr in self.live_map:
                    tid = self.live_map[ptr]
                elif n.op == "placeholder" and self.on_input:
                    tid = self.on_input(n, t)
                elif n.op == "placeholder":
                    tid = prog.new_tensor(n.name, t, "input")
                else:
                    name = n.name if i == 0 else "%s.%d" % (n.name, i)
                    tid = prog.new_tensor(name, t)
                    defs.append(tid)
                out.append((ptr, tid))
            self.ids[n] = out
            if n.op == "placeholder":
                self.order.append(n)
            if defs and n.op not in ("placeholder", "get_attr", "output"):
                uses = list(argmap.values())
                if n.op == "call_module":
                    sub = self.module.get_submodule(n.target)
                    for t in list(sub.parameters()) + list(sub.buffers()):
                        ptr, _ = storage_of(t)
                        if ptr in prog.weights:
                            uses.append(prog.weights[ptr])
                prog.inst(n.name, defs, uses)
            return res

        def propagate(self, *args):
            # ShapeProp prints a traceback of a failing node on stderr;
            # the one line raised from run_node says it all
            with contextlib.redirect_stderr(io.StringIO()):
                return super().propagate(*args)

        def tids(self, n):
            return [tid for _, tid in self.ids.get(n, [])]

    return Recorder


def target_name(n):
    t = n.target
    if isinstance(t, str):
        return t
    return getattr(t, "__name__", None) or str(t)


def writes_in_place(n, module):
    """Does node n write an argument's storage (not just view it)?"""
    name = target_name(n)
    if n.op == "call_module":
        sub = module.get_submodule(n.target)
        return bool(getattr(sub, "inplace", False))
    if n.kwargs.get("inplace"):
        return True
    return any(p.endswith("_") and not p.endswith("__")
               for p in str(n.target).split("."))


# ---------------------------------------------------------------------------
# inference

def trace_inference(torch, model, inputs, prog, label):
    """torch.fx.symbolic_trace; where Python code needs concrete shapes
    (x.shape unpacked, as torchvision's ViT does), make_fx's aten graph.
    Both run on the inputs' device: meta tensors cost no arithmetic."""
    import torch.fx as fx
    model.eval()
    try:
        gm = fx.symbolic_trace(model)
    except Exception as e:
        first = where_failed(e)
        try:
            from torch.fx.experimental.proxy_tensor import make_fx
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gm = make_fx(model)(*inputs)
        except Exception:
            raise Fail("%s: cannot trace (torch.fx.symbolic_trace): %s"
                       % (label, first))
    prog.add_weights(model)
    Recorder = recorder_class(torch)
    rec = Recorder(gm, prog)
    with torch.no_grad():
        rec.propagate(*inputs)
    outs = []
    for n in gm.graph.nodes:
        if n.op == "output":
            outs = rec.tids(n)
    for tid in outs:
        if prog.tensors[tid]["usage"] == "spill":
            prog.tensors[tid]["usage"] = "output"
    return len([n for n in gm.graph.nodes])


# ---------------------------------------------------------------------------
# training: AOT autograd's forward and backward graphs of one step

_META_DONE = []


def meta_conv_backward(torch):
    """PyTorch 1.13 has no meta kernel for convolution_backward: give it
    one (the gradients have the shapes of the input, the weight and the
    bias), so a training step traces on meta tensors without arithmetic."""
    if _META_DONE:
        return
    _META_DONE.append(True)
    try:
        x = torch.empty(1, 1, 3, 3, device="meta")
        w = torch.empty(1, 1, 1, 1, device="meta")
        torch.ops.aten.convolution_backward(x, x, w, [1], [1, 1], [0, 0],
                                            [1, 1], False, [0, 0], 1,
                                            [True, True, True])
        return			# this PyTorch has one
    except Exception:
        pass

    def conv_bw(grad_out, inp, weight, bias_sizes, stride, padding,
                dilation, transposed, output_padding, groups, mask):
        gi = torch.empty_like(inp) if mask[0] else None
        gw = torch.empty_like(weight) if mask[1] else None
        gb = torch.empty(bias_sizes, dtype=grad_out.dtype, device="meta") \
            if mask[2] and bias_sizes is not None else None
        return gi, gw, gb
    lib = torch.library.Library("aten", "IMPL", "Meta")
    lib.impl("convolution_backward", conv_bw)
    _META_DONE.append(lib)	# keep the registration alive


def trace_training(torch, model, inputs, prog, label):
    try:
        from functorch.compile import aot_module, make_boxed_func
    except ImportError as e:
        raise Fail("--train needs functorch.compile (PyTorch 1.13 or "
                   "later): %s" % e)
    model.train()
    if inputs[0].device.type == "meta":
        meta_conv_backward(torch)
    prog.add_weights(model)
    Recorder = recorder_class(torch)
    state = {"fw": None, "bw": None, "fw_outs": [], "primals": [],
             "boundary": None, "nodes": 0}

    def fw_compiler(gm, example):
        state["nodes"] += len(gm.graph.nodes)

        def run(*args):
            rec = Recorder(gm, prog)
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

    tangents = []

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

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cm = aot_module(model, fw_compiler, bw_compiler)
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
            raise Fail("%s: cannot trace a training step "
                       "(functorch.compile.aot_module): %s"
                       % (label, where_failed(e)))
    if state["fw"] is None or state["bw"] is None:
        raise Fail("%s: --train: AOT autograd produced no backward graph"
                   % label)
    # the loss: reads the forward's outputs, writes the backward's
    # tangents (the gradient of each output)
    n_user = len(tangents)
    user = [tid for ids in state["fw_outs"][:n_user] for _, tid in ids]
    loss_inst = {"name": prog.unique("loss", prog.inames),
                 "defs": list(dict.fromkeys(tangents)),
                 "uses": list(dict.fromkeys(user))}
    prog.insts.insert(state["boundary"], loss_inst)
    # gradients: the backward's output i is the gradient of the forward's
    # input i (parameters, buffers, then the network's inputs)
    grads = []
    for prim, g in zip(state["primals"], state["grads"]):
        if not prim or not g:
            continue
        p = prim[0]
        if p in prog.param_of:
            grads.append((p, g[0]))
    return grads, state["nodes"]


# ---------------------------------------------------------------------------
# the model JSON

def emit(prog, name, cores, grads, sgd):
    """The dramplan model: `cores` copies of the program; with cores > 1,
    each gradient is staged into a shared tensor (owned by core 0, linked
    on the others) and one collective all-reduces them."""
    # pre-placed: inputs and weights, packed from 0 in 4 KiB pages
    addr = 0
    addrs = {}
    for tid, t in enumerate(prog.tensors):
        if t["usage"] in ("input", "weight"):
            addrs[tid] = addr
            addr += align(t["elems"] * t["elem_size"])
    training = grads is not None
    grads = grads or []
    gnames = {}
    for p, g in grads:
        gnames[g] = prog.param_of[p]
    doc_cores = []
    for c in range(cores):
        tensors = []
        for tid, t in enumerate(prog.tensors):
            d = {"name": t["name"], "elems": t["elems"],
                 "elem_size": t["elem_size"]}
            usage = t["usage"]
            if cores == 1 and tid in gnames:
                usage = "output"
            if usage != "spill":
                d["usage"] = usage
            if tid in addrs:
                d["address"] = addrs[tid]
            tensors.append(d)
        insts = [{"name": i["name"],
                  "defs": [prog.tensors[x]["name"] for x in i["defs"]],
                  "uses": [prog.tensors[x]["name"] for x in i["uses"]]}
                 for i in prog.insts]
        if cores > 1 and grads:
            shared = []
            for p, g in grads:
                gt = prog.tensors[g]
                sname = short("allreduce." + prog.param_of[p])
                d = {"name": sname, "elems": gt["elems"],
                     "elem_size": gt["elem_size"], "shared": True}
                if c > 0:
                    d["remote"] = {"core": 0, "name": sname}
                tensors.append(d)
                shared.append(sname)
                insts.append({"name": "stage." + prog.param_of[p],
                              "defs": [sname], "uses": [gt["name"]]})
            insts.append({"name": "all_reduce", "defs": shared,
                          "uses": shared, "collective": True})
            src = {g: short("allreduce." + prog.param_of[p])
                   for p, g in grads}
        else:
            src = {g: prog.tensors[g]["name"] for p, g in grads}
        if sgd:
            for p, g in grads:
                w = prog.tensors[p]["name"]
                insts.append({"name": "sgd." + prog.param_of[p],
                              "defs": [w], "uses": [w, src[g]]})
        doc_cores.append({"core": c,
                          "function": "%s_%s%s" % (
                              ident(name), "train_step" if training
                              else "forward",
                              "_rank%d" % c if cores > 1 else ""),
                          "tensors": tensors,
                          "blocks": [{"name": "entry", "succ": [],
                                      "insts": insts}]})
    return {"format": "dramplan-model/1", "model": name, "cores": doc_cores}


def ident(s):
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in s)


def dump(doc):
    """One tensor, one instruction a line: readable and diffable."""
    out = ['{\n  "format": %s,\n  "model": %s,\n  "cores": [\n'
           % (json.dumps(doc["format"]), json.dumps(doc["model"]))]
    for ci, c in enumerate(doc["cores"]):
        out.append('    {\n      "core": %d,\n      "function": %s,\n'
                   '      "tensors": [\n' % (c["core"],
                                             json.dumps(c["function"])))
        out.append(",\n".join("        " + json.dumps(t)
                              for t in c["tensors"]))
        out.append('\n      ],\n      "blocks": [\n')
        for bi, b in enumerate(c["blocks"]):
            out.append('        {"name": %s, "succ": %s, "insts": [\n'
                       % (json.dumps(b["name"]), json.dumps(b["succ"])))
            out.append(",\n".join("          " + json.dumps(i)
                                  for i in b["insts"]))
            out.append("\n        ]}%s\n" % ("," if bi + 1 < len(c["blocks"])
                                           else ""))
        out.append("      ]\n    }%s\n" % ("," if ci + 1 < len(doc["cores"])
                                          else ""))
    out.append("  ]\n}\n")
    return "".join(out)


# ---------------------------------------------------------------------------
# output: dramplan's rule (docs/dramplan.md, "Where outputs go")

def magic_prefix(p):
    return p.startswith("/dev/") or p.startswith("/proc/")


def magic_link(path):
    cur = path
    for _ in range(40):
        if magic_prefix(cur):
            return True
        try:
            st = os.lstat(cur)
        except OSError:
            return False
        if not stat.S_ISLNK(st.st_mode):
            return False
        lnk = os.readlink(cur)
        cur = lnk if lnk.startswith("/") else \
            os.path.join(os.path.dirname(cur), lnk)
    return False


def write_output(path, text):
    data = text.encode()
    if path in ("-", "/dev/stdout", "/dev/stderr"):
        f = sys.stdout if path != "/dev/stderr" else sys.stderr
        try:
            f.buffer.write(data)
            f.flush()
        except OSError as e:
            raise Fail("%s: write error: %s" % (path, e.strerror))
        return
    direct, create, target, keep = False, False, path, None
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise Fail("%s: %s" % (path, e.strerror))
    if st is None:
        pass
    elif stat.S_ISLNK(st.st_mode) and magic_link(path):
        direct, create = True, not os.path.exists(path)
    elif stat.S_ISLNK(st.st_mode):
        try:
            tst = os.stat(path)
        except OSError:
            direct, create = True, True	# dangling: write through
        else:
            if stat.S_ISDIR(tst.st_mode):
                raise Fail("%s: is a directory" % path)
            if stat.S_ISREG(tst.st_mode):
                target, keep = os.path.realpath(path), tst
            else:
                direct = True
    elif stat.S_ISDIR(st.st_mode):
        raise Fail("%s: is a directory" % path)
    elif stat.S_ISREG(st.st_mode) and not magic_prefix(path):
        keep = st
    else:
        direct = True	# device, FIFO, socket, anything in /dev or /proc
    if direct:
        flags = os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC
        flags |= (os.O_CREAT | os.O_TRUNC) if create else os.O_APPEND
        try:
            fd = os.open(path, flags, 0o666)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
        except OSError as e:
            raise Fail("%s: %s" % (path, e.strerror))
        return
    d = os.path.dirname(target) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(target) + ".tmp.",
                                   dir=d)
    except OSError as e:
        raise Fail("%s: cannot create: %s" % (path, e.strerror))
    try:
        if keep is not None:
            if os.geteuid() == 0 and (keep.st_uid, keep.st_gid) != (0, 0):
                os.fchown(fd, keep.st_uid, keep.st_gid)
            os.fchmod(fd, stat.S_IMODE(keep.st_mode))
        else:
            um = os.umask(0)
            os.umask(um)
            os.fchmod(fd, 0o666 & ~um)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.rename(tmp, target)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise Fail("%s: %s" % (path, e.strerror))


# ---------------------------------------------------------------------------

def run(a):
    torch = load_torch()
    if getattr(a, "list", False):
        _, names = torchvision_models()
        print("\n".join(names))
        return 0
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    model, base, shapes = build_module(torch, a.model)
    shapes = a.shapes or shapes
    if not shapes:
        raise Fail("%s: no input shape: give --input-shape C,H,W (or set "
                   "input_shape in the file)" % a.model)
    name = a.name or "%s_%s_b%d%s" % (
        base, "train" if a.train else "infer", a.batch,
        "_%dcore" % a.cores if a.cores > 1 else "")
    # The network runs on meta tensors (shapes, no arithmetic), and on the
    # CPU when an op has no meta kernel.
    devices = [a.device] if a.device != "auto" else ["meta", "cpu"]
    for i, dev in enumerate(devices):
        prog = Program(torch, a.dtype)
        torch.manual_seed(a.seed)
        net = model.to(dev) if dev == "cpu" else \
            copy.deepcopy(model).to(dev)
        inputs = [torch.randn([a.batch] + list(s), device=dev)
                  for s in shapes]
        try:
            if a.train:
                grads, _ = trace_training(torch, net, inputs, prog, a.model)
            else:
                with torch.no_grad():
                    trace_inference(torch, net, inputs, prog, a.model)
                grads = None
            break
        except Fail:
            if i + 1 == len(devices):
                raise
    if not prog.insts:
        raise Fail("%s: the traced graph has no operation" % a.model)
    doc = emit(prog, name, a.cores, grads or ([] if a.train else None),
               a.sgd)
    write_output(a.output, dump(doc))
    return 0


def main(argv):
    try:
        a = parse_args(argv)
        if a.version:
            print("%s %s" % (PROG, version()))
            return 0
        return run(a)
    except Usage as e:
        print("%s: %s (see %s --help)" % (PROG, one_line(e), PROG),
              file=sys.stderr)
        return 2
    except Fail as e:
        print("%s: %s" % (PROG, one_line(e)), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
