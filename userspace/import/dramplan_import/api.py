# SPDX-License-Identifier: GPL-2.0
"""The Python API: a PyTorch module, a model file or an ONNX graph as a
dramplan model (a dict, or written as JSON).  The CLI runs the same
functions.

    import dramplan_import as di
    doc = di.from_module(model, inputs=["tokens:int64:batch,seq"],
                         seq=128, batch=4)
    di.write(doc, "model.json")

Every function raises dramplan_import.Fail (one line, the network's or
the input's error) or dramplan_import.Usage (a wrong argument)."""
import argparse
import sys

from .errors import Fail, Usage
from .spec import parse_spec, merge_specs, value_hint
from .writer import dump, emit, state_inputs, write_output
from . import registry

DEFAULTS = dict(model=None, output="-", shapes=[], specs=[], batch=1,
                phase=None, seq=None, cache_len=None, max_len=None,
                trace="auto", dtype="float32", train=False, cores=1,
                sgd=False, name=None, seed=0, device="auto", threads=1,
                allow_cpu=False, capacity_factor=None, experts=None,
                debug=False)


def options(**kw):
    """The options of an import, as the CLI's --options: the defaults
    above, `inputs` (NAME:DTYPE:SHAPE strings, or a dict of name ->
    DTYPE:SHAPE) and `input_shapes` (shapes without the batch), checked
    like the command line's."""
    unknown = set(kw) - set(DEFAULTS) - {"inputs", "input_shapes"}
    if unknown:
        raise Usage("unknown option %s" % ", ".join(sorted(unknown)))
    a = argparse.Namespace(**dict(DEFAULTS, **{k: v for k, v in kw.items()
                                               if k in DEFAULTS}))
    inputs = kw.get("inputs") or []
    if isinstance(inputs, dict):
        inputs = ["%s:%s" % (k, v) for k, v in inputs.items()]
    if isinstance(inputs, str):
        inputs = [inputs]
    a.specs = [parse_spec(x, "input %s" % x, Usage) for x in inputs]
    a.shapes = [list(s) for s in kw.get("input_shapes") or []]
    check(a)
    return a


def check(a):
    """The option rules the CLI and the API share."""
    for opt in ("batch", "cores", "threads"):
        if getattr(a, opt) < 1:
            raise Usage("--%s: must be positive" % opt)
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
    if a.specs and a.shapes:
        raise Usage("--input and --input-shape do not mix")
    if len(set(sp["name"] for sp in a.specs)) != len(a.specs):
        raise Usage("--input: a name given twice")
    if a.capacity_factor is not None and a.capacity_factor <= 0:
        raise Usage("--capacity-factor: must be positive")
    if a.experts is not None and a.experts < 1:
        raise Usage("--experts: must be positive")


def from_module(model, output=None, **kw):
    """The dramplan model (a dict) of an nn.Module: options as options()
    takes them (inputs, phase, train, batch, seq, ...).  The module is
    traced on the meta device (a copy: its weights are neither copied nor
    changed).  With output, the model is also written there as JSON."""
    from .torch_model import load_torch
    a = options(**kw)
    torch = load_torch()
    doc = trace_module(torch, model, type(model).__name__.lower(), None, a)
    if output is not None:
        write(doc, output)
    return doc


def from_file(model, output=None, **kw):
    """The dramplan model of a torchvision model name, a Python file
    (FILE.py[:ATTR]) or an ONNX graph (FILE.onnx)."""
    a = options(model=model, **kw)
    doc = import_any(a)
    if output is not None:
        write(doc, output)
    return doc


def from_onnx(path, output=None, **kw):
    return from_file(path, output, **kw)


def write(doc, path="-"):
    """A model dict as dramplan's JSON at path (- standard output),
    replaced whole or not at all."""
    write_output(path, dump(doc))


def import_any(a):
    if a.model.endswith(".onnx"):
        if a.train or a.phase or a.shapes:
            raise Usage("an ONNX graph is imported for inference as "
                        "written: no --train, --phase or --input-shape "
                        "(shapes: --input, --batch, --seq)")
        from .onnx_front import import_onnx
        return import_onnx(a)
    from .torch_model import build_module, load_torch
    torch = load_torch()
    torch.manual_seed(a.seed)
    ranks = a.cores if a.phase else 1
    model, base, shapes = build_module(
        torch, a.model, ranks, None if a.device == "cpu" else "meta")
    return trace_module(torch, model, base, shapes, a)


def step_values(a, phase):
    """The symbols' values: batch, seq, cache, max."""
    seq = a.seq if a.seq is not None else (1 if phase == "decode" else None)
    cache = a.cache_len if a.cache_len is not None else 0
    maxlen = a.max_len if a.max_len is not None else \
        (cache + seq if seq is not None else None)
    if maxlen is not None and seq is not None and maxlen < cache + seq:
        raise Usage("--max-len %d: below --cache-len + --seq (%d)"
                    % (maxlen, cache + seq))
    return {"batch": a.batch, "seq": seq, "cache": cache, "max": maxlen}


def model_name(a, base, phase, values):
    seq, cache = values["seq"], values["cache"]
    return a.name or "%s_%s_b%d%s%s%s" % (
        base, phase, a.batch,
        "_s%d" % seq if seq is not None and (a.phase or a.seq) else "",
        "_c%d" % cache if phase == "decode" else "",
        "_%dcore" % a.cores if a.cores > 1 else "")


def trace_module(torch, model, base, shapes, a):
    """The dramplan model of a built module under options a."""
    from .torch_model import file_specs, experts_of
    from .torch_inputs import check_names
    from . import torch_rules
    torch.set_num_threads(a.threads)
    torch_rules.register_collective(torch)
    phase = "train" if a.train else (a.phase or "infer")
    specs = merge_specs(None if a.shapes else file_specs(model, phase),
                        a.specs)
    shapes = a.shapes or shapes
    if not specs and not shapes:
        raise Fail("%s: no input shape: give --input NAME:DTYPE:SHAPE or "
                   "--input-shape C,H,W (or set input_spec or input_shape "
                   "in the file)" % (a.model or base))
    if specs:
        check_names(model, specs, a.model)
    values = step_values(a, phase)
    ctx = registry.Context(a.capacity_factor,
                           a.experts or experts_of(model))
    prog, grads = trace_devices(torch, model, specs, shapes, values, ctx, a)
    label = a.model or base
    if not prog.insts:
        raise Fail("%s: the traced graph has no operation" % label)
    if a.phase and not state_inputs(prog):
        raise Fail("%s: --phase %s: no input is written in place, so the "
                   "model keeps no KV cache (give the cache as inputs that "
                   "forward() writes)" % (label, a.phase))
    return emit(prog, model_name(a, base, phase, values), a.cores,
                grads or ([] if a.train else None), a.sgd)


def trace_devices(torch, model, specs, shapes, values, ctx, a):
    """The trace on meta tensors; on the CPU only where asked: --device
    cpu, or --allow-cpu after an op without a meta kernel."""
    from .torch_model import on_meta, weight_bytes
    devices = ["cpu"] if a.device == "cpu" else ["meta"]
    if a.device == "cpu" and on_meta(model):
        raise Fail("%s: the model is built on the meta device: it cannot "
                   "run on the CPU" % (a.model or "the module"))
    while True:
        try:
            return trace_on(torch, model, devices[-1], specs, shapes,
                            values, ctx, a)
        except registry.NoMetaKernel as e:
            if not a.allow_cpu or devices[-1] == "cpu" or on_meta(model):
                if a.allow_cpu and on_meta(model):
                    raise Fail("%s (--allow-cpu: the model is built on the "
                               "meta device, it cannot run on the CPU)" % e)
                raise Fail(value_hint(str(e), specs)) from e
            print("dramplan-import: note: %s; --allow-cpu: running the "
                  "network on the CPU (%.0f MiB of weights, every op "
                  "computed)" % (str(e).split(";")[0],
                                 weight_bytes(model) / 2**20),
                  file=sys.stderr)
            devices.append("cpu")
        except Fail as e:
            raise Fail(value_hint(str(e), specs)) from e


def trace_on(torch, model, dev, specs, shapes, values, ctx, a):
    """(Program, gradients or None) of one trace on device dev."""
    from .program import Program
    from .torch_model import to_meta
    from .torch_inputs import caller, forward_params, make_inputs
    from .torch_trace import fast_names, trace_inference, trace_training
    fast_names(torch)
    prog = Program(torch, a.dtype)
    torch.manual_seed(a.seed)
    net = model if dev == "cpu" else to_meta(torch, model)
    inputs, names, consts = make_inputs(torch, a, net, specs, shapes, dev,
                                        values)
    if names is None and not a.train:
        names = (forward_params(net) or [])[:len(inputs)]
    call = caller(torch, net, names, consts) if specs else net
    label = a.model or type(model).__name__
    registry.install_aten_meta(torch)
    if a.train:
        with registry.mode(torch, ctx):
            grads, _ = trace_training(torch, call, inputs, prog, label,
                                      owner=net, names=names)
        return prog, grads
    mode = a.trace
    if mode == "auto":
        from .torch_trace import hides_ops
        mode = "aten" if specs or hides_ops(torch, net) else "fx"
    if mode == "fx" and specs:
        raise Usage("--trace fx takes inputs by position (--input-shape): "
                    "inputs by name need --trace aten")
    with torch.no_grad():
        trace_inference(torch, net, call, inputs, prog, label, mode, names,
                        lambda: registry.mode(torch, ctx))
    return prog, None
