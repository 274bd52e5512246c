# SPDX-License-Identifier: GPL-2.0
"""The torch frontend's op rules (registry.py): meta implementations and
breakdowns of ops that have no meta kernel in the installed PyTorch, and
the data-dependent ops, refused or imported under a capacity factor."""
import math

from .registry import DataDependent, DATA_REMEDY, aten_meta, define_op, \
    refuse, torch_rule


@torch_rule("Tensor.repeat_interleave", "torch.repeat_interleave")
def repeat_interleave(ctx, func, args, kwargs):
    """An integer count: unsqueeze, expand, reshape (a copy, as PyTorch's
    own result is).  A tensor of counts is data-dependent."""
    import torch
    x, repeats = args[0], args[1] if len(args) > 1 else kwargs.get("repeats")
    dim = args[2] if len(args) > 2 else kwargs.get("dim")
    if isinstance(repeats, torch.Tensor) and repeats.numel() == 1 and \
            repeats.device.type != "meta":
        repeats = int(repeats)
    if not isinstance(repeats, int):
        if kwargs.get("output_size") is None or len(args) < 2:
            refuse("repeat_interleave(tensor of counts)",
                   "its output shape depends on the counts' values",
                   "a Python integer count, or output_size=N")
        return func(*args, **kwargs)
    if dim is None:
        x, dim = x.reshape(-1), 0
    dim %= x.dim()
    shape = list(x.shape)
    y = x.unsqueeze(dim + 1).expand(*shape[:dim + 1], repeats,
                                    *shape[dim + 1:])
    shape[dim] *= repeats
    return y.reshape(shape)


def capacity_rows(ctx, mask, op):
    """The rows a data-dependent selection from mask keeps under the
    capacity assumption: ceil(capacity x elements / experts), at most
    the elements; refused without a capacity factor."""
    if ctx.capacity is None:
        refuse(op, "its output shape depends on tensor values "
               "(data-dependent: one random run's counts would be baked "
               "in)", DATA_REMEDY)
    if not ctx.experts:
        refuse(op, "--capacity-factor needs the number of experts",
               "--experts N (no module has num_experts or an `experts` "
               "ModuleList)")
    n = mask.numel()
    return max(1, min(n, int(math.ceil(ctx.capacity * n / ctx.experts))))


def nonzero_op(torch):
    """torch.ops.dramplan.nonzero(mask, rows): nonzero's [rows, dims]
    indices, rows fixed by the capacity assumption (zeros on the CPU)."""
    define_op(torch, "nonzero", "nonzero(Tensor mask, int rows) -> Tensor",
              lambda m, r: m.new_empty((r, m.dim()), dtype=torch.long),
              lambda m, r: torch.zeros((r, m.dim()), dtype=torch.long))
    return torch.ops.dramplan.nonzero


def indices(ctx, mask, op):
    import torch
    rows = capacity_rows(ctx, mask, op)
    return nonzero_op(torch)(mask, rows)


@torch_rule("Tensor.nonzero", "torch.nonzero")
def nonzero(ctx, func, args, kwargs):
    nz = indices(ctx, args[0], "nonzero")
    if kwargs.get("as_tuple"):
        return nz.unbind(1)
    return nz


@torch_rule("Tensor.argwhere", "torch.argwhere")
def argwhere(ctx, func, args, kwargs):
    return indices(ctx, args[0], "argwhere")


@torch_rule("torch.where")
def where(ctx, func, args, kwargs):
    """where(condition) alone is nonzero(as_tuple=True)."""
    if len(args) + len(kwargs) > 1:
        return func(*args, **kwargs)
    cond = args[0] if args else kwargs["condition"]
    return indices(ctx, cond, "where(condition)").unbind(1)


@torch_rule("Tensor.masked_select", "torch.masked_select")
def masked_select(ctx, func, args, kwargs):
    import torch
    x, mask = args[0], args[1] if len(args) > 1 else kwargs["mask"]
    x, mask = torch.broadcast_tensors(x, mask)
    return x[indices(ctx, mask, "masked_select").unbind(1)]


def bool_index(ctx, index, op):
    """An index with its boolean masks as the capacity's indices."""
    import torch

    def one(i):
        if isinstance(i, torch.Tensor) and i.dtype == torch.bool:
            return indices(ctx, i, op).unbind(1)
        return (i,)
    if isinstance(index, tuple):
        return tuple(x for i in index for x in one(i)), True
    if isinstance(index, torch.Tensor) and index.dtype == torch.bool:
        return one(index), True
    return index, False


@torch_rule("Tensor.__getitem__")
def getitem(ctx, func, args, kwargs):
    index, masked = bool_index(ctx, args[1], "x[boolean mask]")
    return func(args[0], index) if masked else func(*args, **kwargs)


@torch_rule("Tensor.__setitem__")
def setitem(ctx, func, args, kwargs):
    """x[mask] = scalar writes x in place whatever the count: a
    masked_fill_.  x[mask] = values takes as many values as the mask has
    true elements: data-dependent."""
    import torch
    x, index, value = args
    if isinstance(index, torch.Tensor) and index.dtype == torch.bool and \
            (not isinstance(value, torch.Tensor) or value.numel() == 1):
        mask = index.reshape(tuple(index.shape) +
                             (1,) * (x.dim() - index.dim()))
        if isinstance(value, torch.Tensor):
            value = value.reshape(())
        x.masked_fill_(mask, value)
        return None
    index, masked = bool_index(ctx, index, "x[boolean mask] = values")
    return func(x, index, value) if masked else func(*args, **kwargs)


@torch_rule("Tensor.unique", "torch.unique", "torch.unique_consecutive",
            "Tensor.unique_consecutive", "torch.bincount", "Tensor.bincount")
def unique(ctx, func, args, kwargs):
    refuse("torch." + func.__name__, "its output shape depends on tensor "
           "values (data-dependent)", "a fixed size (for example the "
           "number of classes: one_hot, scatter_add into a tensor of that "
           "size), or no such op in the model", DataDependent)


def probe_nonzero(torch):
    torch.empty(2, dtype=torch.bool, device="meta").nonzero()


@aten_meta("nonzero", probe_nonzero)
def nonzero_meta(torch):
    """aten::nonzero on meta tensors, which boolean-mask indexing calls
    inside PyTorch (x[mask] is no Python-level call to a rule): the
    capacity's rows, or the refusal."""
    from .registry import ACTIVE, Context

    def run(x):
        ctx = ACTIVE.get("ctx") or Context()
        rows = capacity_rows(ctx, x, "aten::nonzero (a boolean mask index "
                             "or nonzero)")
        return x.new_empty((rows, x.dim()), dtype=torch.long)
    return run


def probe_conv_backward(torch):
    x = torch.empty(1, 1, 3, 3, device="meta")
    w = torch.empty(1, 1, 1, 1, device="meta")
    torch.ops.aten.convolution_backward(x, x, w, [1], [1, 1], [0, 0],
                                        [1, 1], False, [0, 0], 1,
                                        [True, True, True])


@aten_meta("convolution_backward", probe_conv_backward)
def conv_backward(torch):
    """The gradients have the shapes of the input, the weight and the
    bias (PyTorch 1.13 has no meta kernel for it)."""
    def conv_bw(grad_out, inp, weight, bias_sizes, stride, padding,
                dilation, transposed, output_padding, groups, mask):
        gi = torch.empty_like(inp) if mask[0] else None
        gw = torch.empty_like(weight) if mask[1] else None
        gb = torch.empty(bias_sizes, dtype=grad_out.dtype, device="meta") \
            if mask[2] and bias_sizes is not None else None
        return gi, gw, gb
    return conv_bw


def register_collective(torch):
    """torch.ops.dramplan.all_reduce(x): a tensor-parallel network's sum
    over its ranks.  For the trace it is a copy; its node becomes a tensor
    shared by the cores and a collective instruction."""
    define_op(torch, "all_reduce", "all_reduce(Tensor x) -> Tensor",
              lambda x: x.clone(), lambda x: x.clone())
