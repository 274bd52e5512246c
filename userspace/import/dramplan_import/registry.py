# SPDX-License-Identifier: GPL-2.0
"""The op registry: what the importer knows of an op beyond what the
installed PyTorch or onnx knows.

Each frontend's rules register here with a decorator, as onnx2torch's
converters do:

  @torch_rule("Tensor.repeat_interleave", "torch.repeat_interleave")
      a Python-level rule, run in place of the function while a model is
      traced (a TorchFunctionMode): a meta implementation where PyTorch
      has none, a breakdown into ops that have one, or a refusal of a
      data-dependent shape, in one line naming the op and the remedies
  @aten_meta("convolution_backward")
      a meta kernel for an aten op that has none, registered once when
      the installed PyTorch lacks it
  @expander("dramplan.lstm")
      how the recorder breaks one graph node into instructions (an RNN
      into its time steps)
  @onnx_rule("Einsum")
      an ONNX op's output shapes, where onnx's shape inference gives none

The rules themselves are in torch_rules.py, rnn.py and onnx_rules.py."""
import sys
import traceback

from .errors import Fail, HERE, first_line

TORCH_RULES = {}	# "Tensor.name" or "torch.name" -> rule(ctx, func, args, kwargs)
ATEN_META = {}		# aten op name -> (probe(torch), kernel maker(torch))
EXPANDERS = {}		# graph node target -> expander(recorder, node, defs, uses, res)
ONNX_RULES = {}		# ONNX op type -> shape rule
_DONE = {}		# registrations kept alive (torch.library.Library objects)
ACTIVE = {}		# "ctx": the Context of the trace under way


def _register(table, keys, entry=lambda f: f):
    """A decorator that files entry(f) in table under each of keys and
    gives f back unchanged."""
    def add(f):
        for k in keys:
            table[k] = entry(f)
        return f
    return add


def torch_rule(*names):
    return _register(TORCH_RULES, names)


def aten_meta(name, probe):
    return _register(ATEN_META, (name,), lambda f: (probe, f))


def expander_for(*targets):
    return _register(EXPANDERS, targets)


def onnx_rule(*ops):
    return _register(ONNX_RULES, ops)


def expander(n):
    """The expander of a graph node, or None."""
    if n.op != "call_function":
        return None
    return EXPANDERS.get(str(n.target).split(".default")[0])


class NoMetaKernel(Fail):
    """An op without a meta kernel or rule: --allow-cpu may help."""


class DataDependent(Fail):
    """An op whose output shape depends on values: no CPU run helps."""


class Context:
    """What the rules may assume: a capacity factor and the number of
    experts for data-dependent row counts (None: refuse them)."""

    def __init__(self, capacity=None, experts=None):
        self.capacity = capacity
        self.experts = experts


def user_frame():
    """'FILE:LINE in FUNCTION' of the innermost frame of the model's own
    code (not torch's, not the importer's), or ''."""
    where = ""
    for fr in traceback.extract_stack():
        f = fr.filename
        if "/torch/" in f or "/functorch/" in f or f.startswith(HERE) or \
                f.startswith("<"):
            continue
        where = "%s:%d in %s" % (f, fr.lineno, fr.name)
    return where


def refuse(op, why, remedies, cls=DataDependent):
    """Stop the trace with one line naming op, where it is, why and what
    to do."""
    where = user_frame()
    raise cls("%s%s: %s; remedies: %s" % (op, " at " + where if where else "",
                                          why, remedies))


def mode(torch, ctx):
    """A TorchFunctionMode that runs the registered rules in place of
    their functions."""
    from torch.overrides import TorchFunctionMode
    from . import torch_rules, rnn  # noqa: F401 (register the rules)
    ACTIVE["ctx"] = ctx
    table = {}
    for name, rule in TORCH_RULES.items():
        owner, attr = name.split(".", 1)
        obj = torch.Tensor if owner == "Tensor" else torch
        f = getattr(obj, attr, None)
        if f is not None:
            table[f] = rule

    class Rules(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            rule = table.get(func)
            if rule is None:
                return func(*args, **(kwargs or {}))
            return rule(ctx, func, args, kwargs or {})
    return Rules()


def install_aten_meta(torch):
    """Meta kernels for the aten ops this PyTorch has none for."""
    from . import torch_rules  # noqa: F401
    for name, (probe, make) in ATEN_META.items():
        if name in _DONE:
            continue
        _DONE[name] = None
        try:
            probe(torch)
            continue		# this PyTorch has one
        except Exception:
            pass
        lib = torch.library.Library("aten", "IMPL", "Meta")
        lib.impl(name, make(torch))
        _DONE[name] = lib	# keep the registration alive


def meta_conv_backward(torch):
    """Kept for the training trace: every aten meta kernel of the
    registry."""
    install_aten_meta(torch)


def define_op(torch, name, schema, meta, cpu):
    """A dramplan:: op (torch.ops.dramplan.NAME): meta and CPU kernels,
    and an autograd kernel that runs them below autograd (no gradient)."""
    key = "dramplan::" + name
    if key in _DONE:
        return
    lib = _DONE.get("dramplan") or torch.library.Library("dramplan", "DEF")
    _DONE["dramplan"] = lib
    lib.define(schema)
    op = getattr(torch.ops.dramplan, name)

    def below_autograd(*args):
        guard = torch._C._AutoDispatchBelowAutograd()
        try:
            return op(*args)
        finally:
            del guard
    lib.impl(name, cpu, "CPU")
    lib.impl(name, meta, "Meta")
    lib.impl(name, below_autograd, "Autograd")
    _DONE[key] = True


# PyTorch's ops whose output shape depends on their input's values
DATA_DEPENDENT_ATEN = ("nonzero", "masked_select", "_unique2", "unique_dim",
                       "unique_consecutive", "_unique", "bincount",
                       "repeat_interleave", "argwhere",
                       "masked_scatter")

VALUE_READ = ("cannot copy out of meta tensor", "item() cannot be called",
              "tensor.item() cannot", "cannot be called on meta tensors",
              "tracing tensor", "data-dependent")

CPU_REMEDY = ("--allow-cpu (runs the network once on the CPU: its weights "
              "in RAM, every op computed, minutes for a large model)")


def failure(e, prefix):
    """A trace's exception as a one-line Fail of the right class: an op
    without a meta kernel, a data-dependent shape, a value read, or the
    exception's first line where it was raised."""
    from .errors import frame_of, where_failed
    e = unwrap(e)
    if isinstance(e, Fail):
        return type(e)("%s%s" % (prefix, first_line(e)))
    msg = first_line(e)
    low = msg.lower()
    op = None
    if "could not run 'aten::" in low and "'meta' backend" in low:
        op = msg.split("'aten::", 1)[1].split("'", 1)[0]
    where = frame_of(e)
    at = " at " + where if where else ""
    if op is not None and op.split(".")[0] in DATA_DEPENDENT_ATEN:
        return DataDependent(
            "%saten::%s%s: its output shape depends on tensor values "
            "(data-dependent); remedies: %s" % (prefix, op, at,
                                                DATA_REMEDY))
    if op is not None:
        return NoMetaKernel(
            "%saten::%s%s has no meta kernel in this PyTorch (%s) and no "
            "rule in dramplan-import; remedies: %s, a meta kernel for it "
            "registered in the model's file (torch.library), or a rewrite "
            "with other ops" % (prefix, op, at, torch_version(), CPU_REMEDY))
    if any(v in low for v in VALUE_READ):
        return NoMetaKernel(
            "%s%s: the model reads a tensor's value (.item(), int(), "
            "a Python if on a tensor), which meta tensors do not have; "
            "remedies: give the value as a Python integer (--input "
            "NAME:int:VALUE), or %s" % (prefix, where_failed(e), CPU_REMEDY))
    return None


def torch_version():
    torch = sys.modules.get("torch")
    return getattr(torch, "__version__", "?")


def unwrap(e):
    """The exception torch.fx's ShapeProp wraps in its own."""
    while str(e).startswith("ShapeProp error") and \
            (e.__cause__ or e.__context__) is not None:
        e = e.__cause__ or e.__context__
    return e


DATA_REMEDY = ("--capacity-factor F (routing, as in GShard and Switch: "
               "each of --experts N takes at most F x its even share of "
               "the rows), or a dense form (multiply by the mask, scatter "
               "into a gate matrix)")


def debug_print(e):
    """--debug: the whole Python traceback behind an error."""
    traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
