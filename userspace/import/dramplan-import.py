#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""dramplan-import - a PyTorch network or an ONNX graph as a dramplan
model (JSON).

    dramplan-import [options] NAME|FILE.py[:ATTR]|FILE.onnx [-o MODEL.json]

NAME is a torchvision model (resnet18, vit_b_16, ...); FILE.py is a Python
file that exports an nn.Module (see --help); FILE.onnx an ONNX graph.  The
network runs once on random inputs with random weights: shapes and byte
sizes come from that run, no weights or data sets are needed.

Inference: torch.fx.symbolic_trace, or make_fx's aten graph where a torch.nn
module hides operations (attention) or inputs come by name; ShapeProp, nodes
in program order.  --phase prefill|decode: one step of a decoder whose KV
cache is inputs written in place.  Training (--train): one step's forward
and backward graphs from functorch.compile.aot_module, joined on one core;
--cores N repeats the step on N cores and all-reduces the gradients through
shared tensors.  ONNX: onnx's shape inference, one instruction per node.

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
               "network (a torchvision model NAME or FILE.py[:ATTR]) or an "
               "ONNX graph (FILE.onnx).")
    p.add_argument("model", metavar="NAME|FILE.py[:ATTR]|FILE.onnx",
                   help="a torchvision model name (see --list), a Python "
                   "file, or an ONNX file; ATTR (default: `model`, then "
                   "`make_model()`, then the one nn.Module class the file "
                   "defines) is an nn.Module, an nn.Module class or a "
                   "function returning one")
    p.add_argument("-o", "--output", default="-", metavar="FILE",
                   help="the model JSON (default -, standard output); "
                   "written like dramplan's outputs")
    p.add_argument("--input-shape", action="append", metavar="C,H,W",
                   help="one input's shape without the batch dimension "
                   "(repeat for several inputs; default: the model's usual "
                   "image, 3,224,224 or 3,299,299)")
    p.add_argument("--input", action="append", metavar="NAME:DTYPE:SHAPE",
                   dest="inputs",
                   help="one input of forward(), by its parameter name: "
                   "DTYPE float, float32, float16, bfloat16, float64, "
                   "int64, int32, int16, int8, uint8, bool or int (a Python "
                   "integer, SHAPE its value); SHAPE the whole shape, dims "
                   "integers or batch, seq, cache, max and their sums "
                   "(cache+seq); an optional :HIGH draws integers in "
                   "[0, HIGH) (repeat for several inputs; default: the "
                   "file's input_spec)")
    p.add_argument("--batch", type=int, default=1, metavar="N",
                   help="batch size (default 1)")
    p.add_argument("--phase", choices=["prefill", "decode"],
                   help="an inference step of a decoder with a KV cache: "
                   "prefill (--seq tokens into an empty cache) or decode "
                   "(one token against --cache-len cached ones)")
    p.add_argument("--seq", type=int, metavar="N",
                   help="the `seq` dimension: tokens in the step (decode: "
                   "default 1)")
    p.add_argument("--cache-len", type=int, metavar="N",
                   help="the `cache` dimension: tokens already in the KV "
                   "cache (decode; prefill: 0)")
    p.add_argument("--max-len", type=int, metavar="N",
                   help="the `max` dimension: the KV cache's capacity "
                   "(default cache + seq); keep it fixed across steps so "
                   "the cache keeps its addresses")
    p.add_argument("--trace", default="auto", choices=["auto", "fx", "aten"],
                   help="inference graph: torch.fx modules (fx), aten "
                   "operations from make_fx (aten), or auto (default): aten "
                   "when a torch.nn module hides operations (attention, "
                   "transformer layers, RNNs) or inputs are given by name")
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
                   "all-reduced through tensors shared across cores; "
                   "(--phase) tensor parallel on N cores where the file's "
                   "factory takes `ranks`, else N serving replicas")
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
    if a.cores > 1 and not a.train and not a.phase:
        raise Usage("--cores N needs --train (data parallel training) or "
                    "--phase (a serving step on N cores)")
    if a.sgd and not a.train:
        raise Usage("--sgd needs --train")
    for opt in ("seq", "cache_len", "max_len"):
        v = getattr(a, opt)
        if v is not None and v < (0 if opt == "cache_len" else 1):
            raise Usage("--%s: must be %s" % (opt.replace("_", "-"),
                        "non-negative" if opt == "cache_len" else
                        "positive"))
    if a.phase and a.train:
        raise Usage("--phase is an inference step: not with --train")
    if a.phase == "decode" and a.cache_len is None:
        raise Usage("--phase decode needs --cache-len N (the tokens "
                    "already in the cache)")
    if a.phase == "prefill" and a.cache_len:
        raise Usage("--phase prefill starts from an empty cache: no "
                    "--cache-len")
    if a.phase == "prefill" and a.seq is None:
        raise Usage("--phase prefill needs --seq N (the prompt's length)")
    if a.inputs and a.input_shape:
        raise Usage("--input and --input-shape do not mix")
    a.specs = [parse_spec(x, "--input %s" % x, Usage)
               for x in a.inputs or []]
    if len(set(sp["name"] for sp in a.specs)) != len(a.specs):
        raise Usage("--input: a name given twice")
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


# ---------------------------------------------------------------------------
# inputs by name: NAME:DTYPE:SHAPE[:HIGH]

FLOAT_TYPES = ("float", "float32", "float16", "bfloat16", "float64")
INT_TYPES = ("int64", "int32", "int16", "int8", "uint8", "bool")
SYMBOLS = ("batch", "seq", "cache", "max")


def parse_expr(text, where, err):
    """A dimension: integers and symbols joined by +, as a list of terms."""
    terms = []
    for term in text.split("+"):
        term = term.strip()
        if term.isdigit():
            terms.append(int(term))
        elif term in SYMBOLS:
            terms.append(term)
        else:
            raise err("%s: \"%s\" is not an integer or one of %s"
                      % (where, term or text, ", ".join(SYMBOLS)))
    return terms


def parse_spec(text, where, err):
    """{name, dtype, dims (list of term lists), high (term list or None)}."""
    if not isinstance(text, str):
        raise err("%s: not a string NAME:DTYPE:SHAPE" % where)
    parts = text.split(":")
    if len(parts) not in (3, 4):
        raise err("%s: not NAME:DTYPE:SHAPE[:HIGH]" % where)
    name, dtype, shape = (x.strip() for x in parts[:3])
    if not name.isidentifier():
        raise err("%s: \"%s\" is not a parameter name" % (where, name))
    if dtype not in FLOAT_TYPES + INT_TYPES + ("int",):
        raise err("%s: unknown DTYPE \"%s\" (%s)" % (
            where, dtype, ", ".join(FLOAT_TYPES + INT_TYPES + ("int",))))
    dims = [parse_expr(d, where, err) for d in shape.split(",")] \
        if shape.strip() else []
    if dtype == "int" and len(dims) != 1:
        raise err("%s: an int input's SHAPE is its value, one expression"
                  % where)
    high = None
    if len(parts) == 4:
        if dtype not in INT_TYPES[:-1]:
            raise err("%s: HIGH is for integer tensors" % where)
        high = parse_expr(parts[3], where, err)
    return {"name": name, "dtype": dtype, "dims": dims, "high": high,
            "text": text}


def eval_expr(terms, values, spec):
    n = 0
    for t in terms:
        if isinstance(t, int):
            n += t
            continue
        v = values.get(t)
        if v is None:
            opt = {"seq": "--seq N", "cache": "--cache-len N (or --phase "
                   "prefill)", "max": "--max-len N", "batch": "--batch N"}[t]
            raise Fail("input '%s' (%s): dimension '%s' has no value: pass "
                       "%s" % (spec["name"], spec["text"], t, opt))
        n += v
    return n


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


def build_module(torch, spec, ranks=1):
    """(module, name, input shapes or None) for a model argument; a file's
    factory that takes `ranks` builds one rank's share of a tensor-parallel
    network."""
    path, attr = spec, ""
    if ".py:" in spec:
        path, attr = spec.rsplit(".py:", 1)
        path += ".py"
    if path.endswith(".py"):
        return from_file(torch, path, attr, ranks)
    tvm, names = torchvision_models()
    if spec not in names:
        raise Fail("%s: not a torchvision model and not a .py file "
                   "(dramplan-import --list names the models)" % spec)
    kw = {}
    if spec.startswith("inception") or spec == "googlenet":
        kw["aux_logits"] = False
        kw["init_weights"] = False
    seg = getattr(tvm, "segmentation", None)
    make = getattr(tvm, spec, None)
    if make is None and seg is not None:
        # --list names the segmentation models too; their backbone's
        # weights would be downloaded unless none are asked for
        make = getattr(seg, spec)
        kw["weights_backbone"] = None
    try:
        try:
            m = make(weights=None, **kw)
        except TypeError:
            m = make(**kw)
    except Exception as e:
        raise Fail("%s: cannot build the torchvision model: %s"
                   % (spec, where_failed(e)))
    return m, spec, [default_shape(spec)]


def from_file(torch, path, attr, ranks=1):
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
            m = obj(ranks=ranks) if ranks > 1 and takes_ranks(obj) \
                else obj()
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
    m._dramplan_spec = (path, getattr(mod, "input_spec", None))
    return m, base, [list(s) for s in shapes] if shapes else None


def file_specs(model, phase):
    """The input_spec for a phase: the module's (an attribute, or a method
    called with the phase), else the file's.  A list of NAME:DTYPE:SHAPE
    strings, or a dict of such lists keyed by phase (infer, train,
    prefill, decode; "default" for the others)."""
    path, spec = getattr(model, "_dramplan_spec", (None, None))
    own = getattr(model, "input_spec", None)
    if own is not None:
        path = path or type(model).__name__
        if callable(own):
            try:
                own = own(phase)
            except Exception as e:
                raise Fail("%s: input_spec(\"%s\"): %s"
                           % (path, phase, where_failed(e)))
        spec = own
    if spec is None:
        return None
    if isinstance(spec, dict):
        if phase in spec:
            spec = spec[phase]
        elif phase in ("prefill", "decode") and "infer" in spec:
            spec = spec["infer"]
        elif "default" in spec:
            spec = spec["default"]
        else:
            raise Fail("%s: input_spec has no \"%s\" entry (it has %s)"
                       % (path, phase, ", ".join(sorted(spec))))
    if not isinstance(spec, (list, tuple)):
        raise Fail("%s: input_spec: not a list of NAME:DTYPE:SHAPE strings"
                   % path)
    out = [parse_spec(x, "%s: input_spec \"%s\"" % (path, x), Fail)
           for x in spec]
    if len(set(sp["name"] for sp in out)) != len(out):
        raise Fail("%s: input_spec: a name given twice" % path)
    return out


def takes_ranks(f):
    import inspect
    try:
        return "ranks" in inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False


_COLLECTIVE = []


def register_collective(torch):
    """torch.ops.dramplan.all_reduce(x): a tensor-parallel network's sum
    over its ranks.  For the trace it is a copy; its node becomes a tensor
    shared by the cores and a collective instruction."""
    if _COLLECTIVE:
        return
    lib = torch.library.Library("dramplan", "DEF")
    lib.define("all_reduce(Tensor x) -> Tensor")

    def copy_of(x):
        return x.clone()

    def below_autograd(x):
        guard = torch._C._AutoDispatchBelowAutograd()
        try:
            return torch.ops.dramplan.all_reduce(x)
        finally:
            del guard
    lib.impl("all_reduce", copy_of, "CPU")
    lib.impl("all_reduce", copy_of, "Meta")
    lib.impl("all_reduce", below_autograd, "Autograd")
    _COLLECTIVE.append(lib)	# keep the registration alive


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

    def new_raw(self, name, elems, elem_size, floating, usage="spill"):
        """A tensor known by its element count and type (ONNX)."""
        self.tensors.append({"name": self.unique(short(name), self.names),
                             "elems": max(1, elems),
                             "elem_size": self.fsize if floating
                             else elem_size, "usage": usage})
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
                self.tensors[tid]["module"] = True
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

        def __init__(self, gm, prog, live_map=None, placeholder=None,
                     input_names=None):
            super().__init__(gm)
            self.prog = prog
            self.input_names = list(input_names or [])
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
                    tid = prog.new_tensor(self.input_names.pop(0)
                                          if self.input_names else n.name,
                                          t, "input")
                else:
                    name = n.name if i == 0 else "%s.%d" % (n.name, i)
                    tid = prog.new_tensor(name, t)
                    if str(n.target).startswith("dramplan.all_reduce"):
                        prog.tensors[tid]["collective"] = True
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


def trace_inference(torch, model, call, inputs, prog, label, mode,
                    names=None):
    """torch.fx.symbolic_trace (mode fx), or make_fx's aten graph (mode
    aten, and where Python code needs concrete shapes: x.shape unpacked,
    as torchvision's ViT does).  Both run on the inputs' device: meta
    tensors cost no arithmetic.  call(*inputs) runs the model."""
    import torch.fx as fx
    from torch.fx.experimental.proxy_tensor import make_fx
    model.eval()
    gm, first = None, None
    if mode == "fx":
        try:
            gm = fx.symbolic_trace(model)
        except Exception as e:
            first = "cannot trace (torch.fx.symbolic_trace): %s" \
                % where_failed(e)
    if gm is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gm = make_fx(call)(*inputs)
        except Exception as e:
            raise Fail("%s: %s" % (label, first or "cannot trace (make_fx): "
                                   + where_failed(e)))
    prog.add_weights(model)
    Recorder = recorder_class(torch)
    rec = Recorder(gm, prog, input_names=names)
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


def trace_training(torch, model, inputs, prog, label, owner=None,
                   names=None):
    try:
        from functorch.compile import aot_module, make_boxed_func
    except ImportError as e:
        raise Fail("--train needs functorch.compile (PyTorch 1.13 or "
                   "later): %s" % e)
    model.train()
    if inputs and inputs[0].device.type == "meta":
        meta_conv_backward(torch)
    prog.add_weights(owner or model)
    Recorder = recorder_class(torch)
    state = {"fw": None, "bw": None, "fw_outs": [], "primals": [],
             "boundary": None, "nodes": 0}

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
    # pre-placed: inputs and weights, packed from 0 in 4 KiB pages: the
    # module's parameters and buffers, then the inputs the step writes in
    # place (a KV cache: state kept across steps), then the trace's
    # constants, then the other inputs.  The state's addresses thus depend
    # on the weights and the state alone, not on the step's length.
    state = state_inputs(prog)
    addr = 0
    addrs = {}

    def rank(tid):
        t = prog.tensors[tid]
        if t["usage"] == "weight":
            return 0 if t.get("module") else 2
        return 1 if tid in state else 3
    pre = [tid for tid, t in enumerate(prog.tensors)
           if t["usage"] in ("input", "weight")]
    for tid in sorted(pre, key=lambda x: (rank(x), x)):
        t = prog.tensors[tid]
        addrs[tid] = addr
        addr += align(t["elems"] * t["elem_size"])
    training = grads is not None
    grads = grads or []
    gnames = {}
    for p, g in grads:
        gnames[g] = prog.param_of[p]
    # a tensor-parallel network's all-reduced tensors: one buffer shared
    # by the cores, owned by core 0, linked on the others
    coll = set(tid for tid, t in enumerate(prog.tensors)
               if t.get("collective")) if cores > 1 else set()
    staged = set(i["name"] for i in prog.insts)
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
            if tid in coll:
                d["shared"] = True
                if c > 0:
                    d["remote"] = {"core": 0, "name": t["name"]}
            tensors.append(d)
        insts = []
        taken = set(staged)
        for i in prog.insts:
            d = {"name": i["name"],
                 "defs": [prog.tensors[x]["name"] for x in i["defs"]],
                 "uses": [prog.tensors[x]["name"] for x in i["uses"]]}
            if cores > 1 and any(x in coll for x in i["defs"]):
                # tensor parallel: this core's partial sum staged into
                # the shared tensor, then summed over the cores in place
                d["name"] = prog.unique("stage." + i["name"], taken)
                insts.append(d)
                d = {"name": i["name"], "defs": d["defs"],
                     "uses": d["defs"], "collective": True}
            insts.append(d)
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


def state_inputs(prog):
    """Inputs that an instruction writes (in place): a KV cache."""
    return set(x for i in prog.insts for x in i["defs"]
               if prog.tensors[x]["usage"] == "input")


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

def tensor_dtype(torch, name):
    return {"float": torch.float32, "float32": torch.float32,
            "float16": torch.float32, "bfloat16": torch.float32,
            "float64": torch.float32, "int64": torch.int64,
            "int32": torch.int32, "int16": torch.int16, "int8": torch.int8,
            "uint8": torch.uint8, "bool": torch.bool}[name]


def forward_params(model):
    """forward()'s parameter names, or None if it takes **kwargs."""
    import inspect
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


def merge_specs(defaults, given):
    """The inputs: the defaults (input_spec), each one that --input names
    replaced by it, then the other --input ones."""
    if not defaults:
        return given or None
    by_name = {sp["name"]: sp for sp in given}
    out = [by_name.pop(sp["name"], sp) for sp in defaults]
    return out + [sp for sp in given if sp["name"] in by_name]


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


# ---------------------------------------------------------------------------
# ONNX: the graph as written, shapes from onnx's shape inference

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


FOLD_MAX = 4096		# elements of a value worth folding (shape data)


def onnx_fold(onnx, m, info):
    """Values computed from constants and known shapes alone (torch's
    exports compute positions and shapes so: Shape, Gather, Add, Range,
    ...), for the nodes whose output shape inference leaves open: each
    such node becomes a Constant node of its value.  Returns whether a
    node was replaced."""
    import numpy as np
    from onnx import numpy_helper
    g = m.graph
    val = {}
    for init in g.initializer:
        n = 1
        for d in init.dims:
            n *= d
        if n <= FOLD_MAX:
            val[init.name] = numpy_helper.to_array(init)

    def attr(n, name, default=None):
        for at in n.attribute:
            if at.name == name:
                return onnx.helper.get_attribute_value(at)
        return default

    def axes_of(n, ins):
        ax = attr(n, "axes")
        if ax is None and len(ins) > 1:
            ax = [int(x) for x in ins[1].reshape(-1)]
        return ax

    def evaluate(n, ins):
        op = n.op_type
        if op == "Constant":
            t = attr(n, "value")
            return numpy_helper.to_array(t) if t is not None else None
        if op == "Cast":
            dt = onnx.helper.tensor_dtype_to_np_dtype(attr(n, "to"))
            return ins[0].astype(dt)
        if op in ("Add", "Sub", "Mul", "Div"):
            a, b = ins
            if op == "Div" and a.dtype.kind in "iu":
                return np.trunc(a / b).astype(a.dtype)
            return {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
                    "Div": np.divide}[op](a, b).astype(a.dtype)
        if op == "Gather":
            return np.take(ins[0], ins[1], axis=attr(n, "axis", 0))
        if op == "Unsqueeze":
            out = ins[0]
            for ax in sorted(axes_of(n, ins)):
                out = np.expand_dims(out, ax)
            return out
        if op == "Squeeze":
            ax = axes_of(n, ins)
            return np.squeeze(ins[0], axis=tuple(ax) if ax else None)
        if op == "Concat":
            return np.concatenate(ins, axis=attr(n, "axis"))
        if op == "Range":
            return np.arange(ins[0], ins[1], ins[2]).astype(ins[0].dtype)
        if op == "Reshape":
            shape = [d if d != 0 else ins[0].shape[i]
                     for i, d in enumerate(ins[1].tolist())]
            return ins[0].reshape(shape)
        if op == "Equal":
            return np.equal(ins[0], ins[1])
        if op == "Where":
            return np.where(ins[0], ins[1], ins[2])
        if op == "ConstantOfShape":
            t = attr(n, "value")
            v = numpy_helper.to_array(t) if t is not None \
                else np.zeros(1, np.float32)
            return np.full(ins[0].tolist(), v.reshape(-1)[0], v.dtype)
        if op == "Slice":
            x, st, en = ins[0], ins[1], ins[2]
            ax = ins[3] if len(ins) > 3 else range(len(st))
            sp = ins[4] if len(ins) > 4 else [1] * len(st)
            sl = [slice(None)] * x.ndim
            for a_, b_, c_, d_ in zip(ax, st, en, sp):
                sl[int(a_)] = slice(int(b_), int(c_), int(d_))
            return x[tuple(sl)]
        return None

    made = {}
    for k, n in enumerate(list(g.node)):
        if n.op_type == "Shape":
            dims = onnx_dims(info[n.input[0]]) if n.input[0] in info \
                else None
            if dims and all(v is not None for v, _ in dims):
                sh = np.array([v for v, _ in dims], np.int64)
                st, en = attr(n, "start", 0), attr(n, "end", None)
                val[n.output[0]] = sh[st:en]
            continue
        ins = [val.get(i) for i in n.input if i]
        if any(x is None for x in ins):
            continue
        try:
            out = evaluate(n, ins)
        except Exception:
            out = None
        if out is None or np.size(out) > FOLD_MAX:
            continue
        val[n.output[0]] = np.asarray(out)
        made[n.output[0]] = k

    def fold(k):
        n = g.node[k]
        if n.op_type == "Constant":
            return False
        c = onnx.helper.make_node(
            "Constant", [], [n.output[0]], name=n.name,
            value=numpy_helper.from_array(val[n.output[0]], n.output[0]))
        g.node[k].CopyFrom(c)
        return True
    # a node whose output shape is open: its value, else the values of
    # its inputs (Expand's or Reshape's target shape)
    changed = False
    for k, n in enumerate(list(g.node)):
        if not n.output or not n.output[0]:
            continue
        vi = info.get(n.output[0])
        dims = onnx_dims(vi) if vi is not None else None
        if dims is not None and all(v is not None for v, _ in dims):
            continue
        if n.output[0] in made:
            changed |= fold(k)
            continue
        for i in n.input:
            if i in made:
                changed |= fold(made[i])
    return changed


def onnx_infer(onnx, m, path):
    """Shape inference, with values folded where it leaves a shape open."""
    for _ in range(64):
        try:
            m = onnx.shape_inference.infer_shapes(m, strict_mode=True,
                                                  data_prop=True)
        except Exception as e:
            raise Fail("%s: shape inference: %s" % (path, e))
        info = {}
        for vi in list(m.graph.input) + list(m.graph.value_info) + \
                list(m.graph.output):
            info.setdefault(vi.name, vi)
        if not onnx_fold(onnx, m, info):
            return m, info
    return m, info


def import_onnx(a):
    onnx = load_onnx()
    path = a.model
    if not os.path.isfile(path):
        raise Fail("%s: no such file" % path)
    try:
        with open(path, "rb") as f:
            m = onnx.load_model_from_string(f.read())
    except Exception as e:
        raise Fail("%s: not an ONNX model (%s: %s)"
                   % (path, type(e).__name__, e))
    g = m.graph
    if not g.node:
        raise Fail("%s: the graph has no node (truncated or empty?)" % path)
    top = onnx.defs.onnx_opset_version()
    for op in m.opset_import:
        if op.domain in ("", "ai.onnx") and op.version > top:
            raise Fail("%s: opset %d is newer than this onnx's (%s, up to "
                       "opset %d)" % (path, op.version, onnx.__version__,
                                      top))
    for k, n in enumerate(g.node):
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
    order = onnx_order(g, path)
    # the graph's inputs get concrete shapes: --input, else the symbols
    inits = set(i.name for i in g.initializer)
    given = {sp["name"]: sp for sp in a.specs}
    seq = a.seq
    values = {"batch": a.batch, "seq": seq, "cache": a.cache_len or 0,
              "max": a.max_len if a.max_len is not None else
              (None if seq is None else seq + (a.cache_len or 0))}
    names = [i.name for i in g.input if i.name not in inits]
    for sp in a.specs:
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
        sp = given.get(vi.name)
        if sp:
            shape = [eval_expr(d, values, sp) for d in sp["dims"]]
            if len(shape) != len(dims):
                raise Fail("input '%s' (%s): the graph's input has %d "
                           "dimensions, not %d" % (vi.name, sp["text"],
                                                   len(dims), len(shape)))
        else:
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
        sh = vi.type.tensor_type.shape
        for d, v in zip(sh.dim, shape):
            d.Clear()
            d.dim_value = v
    m, info = onnx_infer(onnx, m, path)
    g = m.graph
    prog = Program(None, a.dtype)
    tid = {}

    def tensor(name, where, usage):
        vi = info.get(name)
        dims = onnx_dims(vi) if vi is not None else None
        if dims is None or any(v is None for v, _ in dims):
            raise Fail("%s: %s: shape inference gives no shape for '%s'%s"
                       % (path, where, name,
                          " (dimension '%s')" % [p for v, p in dims
                                                 if v is None][0]
                          if dims else ""))
        et = vi.type.tensor_type.elem_type
        if et not in ONNX_SIZE:
            raise Fail("%s: %s: '%s' has element type %d, not a number"
                       % (path, where, name, et))
        elems = 1
        for v, _ in dims:
            elems *= v
        if elems == 0:
            return None
        return prog.new_raw(name, elems, ONNX_SIZE[et], et in ONNX_FLOAT,
                            usage)
    for init in g.initializer:
        elems = 1
        for d in init.dims:
            elems *= d
        if elems == 0:
            continue
        if init.data_type not in ONNX_SIZE:
            raise Fail("%s: initializer '%s' has element type %d, not a "
                       "number" % (path, init.name, init.data_type))
        tid[init.name] = prog.new_raw(init.name, elems,
                                      ONNX_SIZE[init.data_type],
                                      init.data_type in ONNX_FLOAT, "weight")
        prog.tensors[tid[init.name]]["module"] = True
    for vi in g.input:
        if vi.name not in tid and vi.name not in inits:
            t = tensor(vi.name, "input '%s'" % vi.name, "input")
            if t is not None:
                tid[vi.name] = t
    for k in order:
        n = g.node[k]
        where = "node '%s' (%s)" % (onnx_node_name(n, k), n.op_type)
        uses = [tid[i] for i in n.input if i in tid]
        if n.op_type == "Constant":
            for o in n.output:
                t = tensor(o, where, "weight")
                if t is not None:
                    tid[o] = t
            continue
        if n.op_type in ONNX_ALIAS and n.input and n.input[0] in tid:
            tid[n.output[0]] = tid[n.input[0]]
            continue
        defs = []
        for o in n.output:
            if not o:
                continue
            t = tensor(o, where, "spill")
            if t is not None:
                tid[o] = t
                defs.append(t)
        if defs:
            prog.inst(onnx_node_name(n, k), defs, uses)
    for vi in g.output:
        t = tid.get(vi.name)
        if t is not None and prog.tensors[t]["usage"] == "spill":
            prog.tensors[t]["usage"] = "output"
    if not prog.insts:
        raise Fail("%s: the graph has no operation" % path)
    base = os.path.splitext(os.path.basename(path))[0]
    name = a.name or "%s_infer_b%d" % (base, a.batch)
    write_output(a.output, dump(emit(prog, name, 1, None, False)))
    return 0



def to_device(model, dev):
    """model.to(dev), keeping tied parameters tied: Module.to() moves each
    module's parameters one by one, so a parameter two modules share
    (GPT-2's head and token embedding) would become two tensors."""
    owners = {}
    for m in model.modules():
        for pn, p in m._parameters.items():
            if p is not None:
                owners.setdefault(id(p), []).append((m, pn))
    model = model.to(dev)
    for refs in owners.values():
        first = refs[0][0]._parameters[refs[0][1]]
        for m, pn in refs[1:]:
            m._parameters[pn] = first
    return model


def run(a):
    if not getattr(a, "list", False) and a.model.endswith(".onnx"):
        if a.train or a.phase or a.shapes:
            raise Usage("an ONNX graph is imported for inference as "
                        "written: no --train, --phase or --input-shape "
                        "(shapes: --input, --batch, --seq)")
        return import_onnx(a)
    torch = load_torch()
    if getattr(a, "list", False):
        _, names = torchvision_models()
        print("\n".join(names))
        return 0
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    register_collective(torch)
    ranks = a.cores if a.phase else 1
    model, base, shapes = build_module(torch, a.model, ranks)
    phase = "train" if a.train else (a.phase or "infer")
    specs = merge_specs(None if a.shapes else file_specs(model, phase),
                        a.specs)
    shapes = a.shapes or shapes
    if not specs and not shapes:
        raise Fail("%s: no input shape: give --input NAME:DTYPE:SHAPE or "
                   "--input-shape C,H,W (or set input_spec or input_shape "
                   "in the file)" % a.model)
    if specs:
        check_names(model, specs, a.model)
    seq = a.seq if a.seq is not None else (1 if phase == "decode" else None)
    cache = a.cache_len if a.cache_len is not None else 0
    maxlen = a.max_len if a.max_len is not None else \
        (cache + seq if seq is not None else None)
    if maxlen is not None and seq is not None and maxlen < cache + seq:
        raise Usage("--max-len %d: below --cache-len + --seq (%d)"
                    % (maxlen, cache + seq))
    values = {"batch": a.batch, "seq": seq, "cache": cache, "max": maxlen}
    name = a.name or "%s_%s_b%d%s%s%s" % (
        base, phase, a.batch,
        "_s%d" % seq if seq is not None and (a.phase or a.seq) else "",
        "_c%d" % cache if phase == "decode" else "",
        "_%dcore" % a.cores if a.cores > 1 else "")
    mode = a.trace
    if mode == "auto":
        mode = "aten" if specs or hides_ops(torch, model) else "fx"
    if mode == "fx" and specs:
        raise Usage("--trace fx takes inputs by position (--input-shape): "
                    "inputs by name need --trace aten")
    # The network runs on meta tensors (shapes, no arithmetic), and on the
    # CPU when an op has no meta kernel.
    devices = [a.device] if a.device != "auto" else ["meta", "cpu"]
    for i, dev in enumerate(devices):
        prog = Program(torch, a.dtype)
        torch.manual_seed(a.seed)
        net = model.to(dev) if dev == "cpu" else \
            to_device(copy.deepcopy(model), dev)
        inputs, names, consts = make_inputs(torch, a, net, specs, shapes,
                                            dev, values)
        if names is None and not a.train:
            names = (forward_params(net) or [])[:len(inputs)]
        call = caller(torch, net, names, consts) if specs else net
        try:
            if a.train:
                grads, _ = trace_training(torch, call, inputs, prog, a.model,
                                          owner=net, names=names)
            else:
                with torch.no_grad():
                    trace_inference(torch, net, call, inputs, prog, a.model,
                                    mode, names)
                grads = None
            break
        except Fail as e:
            if i + 1 == len(devices):
                raise Fail(value_hint(str(e), specs))
    if not prog.insts:
        raise Fail("%s: the traced graph has no operation" % a.model)
    if a.phase and not state_inputs(prog):
        raise Fail("%s: --phase %s: no input is written in place, so the "
                   "model keeps no KV cache (give the cache as inputs that "
                   "forward() writes)" % (a.model, a.phase))
    doc = emit(prog, name, a.cores, grads or ([] if a.train else None),
               a.sgd)
    write_output(a.output, dump(doc))
    return 0


def value_hint(msg, specs):
    """A trace that failed on the values of an integer input: say which
    inputs and what to pass."""
    low = msg.lower()
    ints = [sp for sp in specs or [] if sp["dtype"] in INT_TYPES[:-1]]
    if not ints:
        return msg
    names = ", ".join(sp["name"] for sp in ints)
    if "tracing tensor" in low or "data-dependent" in low:
        return "%s (the trace reads the values of an integer input (%s): " \
            "give the one it needs as a Python integer, --input " \
            "NAME:int:VALUE)" % (msg, names)
    if any(w in low for w in ("index", "out of range", "out of bounds")):
        return "%s (integer inputs (%s) are drawn below %s: give their " \
            "range, --input NAME:DTYPE:SHAPE:HIGH)" % (
                msg, names, "the smallest nn.Embedding's num_embeddings")
    return msg


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
