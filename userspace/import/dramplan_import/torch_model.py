# SPDX-License-Identifier: GPL-2.0
"""The torch frontend's models: PyTorch loaded on demand, a torchvision
model by name or a Python file's nn.Module, its input_spec, and the move
to the meta device."""
import copy
import importlib.util
import inspect
import os
import sys

from .errors import Fail, where_failed
from .spec import parse_spec


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


def build_module(torch, spec, ranks=1, device=None):
    """(module, name, input shapes or None) for a model argument; a file's
    factory that takes `ranks` builds one rank's share of a tensor-parallel
    network, one that takes `device` builds on that device (meta: no
    memory for the weights)."""
    path, attr = spec, ""
    if ".py:" in spec:
        path, attr = spec.rsplit(".py:", 1)
        path += ".py"
    if path.endswith(".py"):
        return from_file(torch, path, attr, ranks, device)
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


def from_file(torch, path, attr, ranks=1, device=None):
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
            kw = {}
            if ranks > 1 and takes(obj, "ranks"):
                kw["ranks"] = ranks
            if device and takes(obj, "device"):
                kw["device"] = device
            m = obj(**kw)
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


def takes(f, name):
    """Does the callable f take a parameter `name`?"""
    try:
        return name in inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False


def to_meta(torch, model):
    """A copy of the model on the meta device, its weights not copied:
    each parameter and buffer is replaced by a meta tensor of its shape
    (deepcopy's memo), so tied weights stay tied and a CPU model costs no
    second copy of its weights."""
    memo = {}
    for t in list(model.parameters()) + list(model.buffers()):
        if id(t) in memo:
            continue
        m = torch.empty_like(t, device="meta")
        if isinstance(t, torch.nn.Parameter):
            m = torch.nn.Parameter(m, requires_grad=t.requires_grad)
        memo[id(t)] = m
    return copy.deepcopy(model, memo)


def on_meta(model):
    """Is any of the model's weights a meta tensor (built on meta)?"""
    for t in list(model.parameters()) + list(model.buffers()):
        if t.device.type == "meta":
            return True
    return False


def experts_of(model):
    """The number of experts of a mixture-of-experts model: a module's
    num_experts (n_experts, num_local_experts), else the length of an
    `experts` ModuleList; None if none."""
    import torch.nn as nn
    for m in model.modules():
        for a in ("num_experts", "n_experts", "num_local_experts"):
            v = getattr(m, a, None)
            if isinstance(v, int) and v > 0:
                return v
        ex = getattr(m, "experts", None)
        if isinstance(ex, nn.ModuleList) and len(ex):
            return len(ex)
    return None


def weight_bytes(model):
    return sum(t.numel() * t.element_size()
               for t in list(model.parameters()) + list(model.buffers()))
