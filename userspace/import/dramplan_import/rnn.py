# SPDX-License-Identifier: GPL-2.0
"""Recurrent layers in time linear in the sequence: nn.LSTM, nn.GRU and
nn.RNN run as one op, torch.ops.dramplan.rnn (and rnn_backward for a
training step), instead of PyTorch's per-step aten graph; the recorder
breaks each into its time steps itself (an expander), so the model has
each step's tensors:

  forward, each layer (and direction), each step t:
    <op>.l<L>.t<t>.gates   [batch, G x hidden]  the step's gate
                           pre-activations (G: LSTM 4, GRU 3, RNN 1),
                           from the layer's input at t and h(t-1)
    <op>.l<L>.t<t>.c       [batch, hidden]  LSTM's cell state, read by
                           step t+1
    h(t) is written into the layer's output sequence; in a training
    step each step also writes its gates and states into the op's
    reserve (as cuDNN's reserve space), which the backward reads
  backward, each layer from the last, each step from the last:
    <op>.l<L>.t<t>.dgates  the gates' gradient
    <op>.l<L>.t<t>.dh, .dc the gradient carried to step t-1
    each step accumulates the weights' gradients and writes the layer
    input's gradient at t

A step's tensors live one or two steps: the plan reuses their bytes, as
the lower bound does."""
from .program import storage_of
from .registry import define_op, expander_for, refuse, torch_rule

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}
MODES = ["lstm", "gru", "rnn_tanh", "rnn_relu"]


def shapes(x, hidden, layers, dirs, gates, batch_first, train):
    """The op's output shapes: the output sequence, h_n, c_n, the
    reserve (each layer's gates, c and h at every step; empty for
    inference)."""
    t, b = (x.shape[1], x.shape[0]) if batch_first else \
        (x.shape[0], x.shape[1])
    out = [b, t, dirs * hidden] if batch_first else [t, b, dirs * hidden]
    reserve = [layers * dirs * t * b * (gates + 2) * hidden] if train \
        else [0]
    return out, [layers * dirs, b, hidden], reserve


def rnn_meta(torch, device):
    def run(x, hx, params, mode, layers, bidirectional, batch_first,
            train):
        dirs = 2 if bidirectional else 1
        hidden = hx[0].shape[-1]
        out, h, res = shapes(x, hidden, layers, dirs, GATES[MODES[mode]],
                             batch_first, train)

        def new(s):
            t = torch.empty(s, dtype=x.dtype, device=device)
            return t if device == "meta" else t.zero_()
        c = new(h) if MODES[mode] == "lstm" else new([0])
        return new(out), new(h), c, new(res)
    return run


def rnn_backward_meta(torch, device):
    def run(gout, ghn, gcn, x, out, reserve, hx, params, mode, layers,
            bidirectional, batch_first):
        def like(t):
            r = torch.empty_like(t, device=device)
            return r if device == "meta" else r.zero_()
        return [like(x)] + [like(h) for h in hx] + [like(p) for p in params]
    return run


def define_ops(torch):
    define_op(torch, "rnn", "rnn(Tensor input, Tensor[] hx, Tensor[] "
              "params, int mode, int layers, bool bidirectional, bool "
              "batch_first, bool train) -> (Tensor, Tensor, Tensor, Tensor)",
              rnn_meta(torch, "meta"), rnn_meta(torch, "cpu"))
    define_op(torch, "rnn_backward", "rnn_backward(Tensor grad_output, "
              "Tensor grad_hn, Tensor grad_cn, Tensor input, Tensor output, "
              "Tensor reserve, Tensor[] hx, Tensor[] params, int mode, int "
              "layers, bool bidirectional, bool batch_first) -> Tensor[]",
              rnn_backward_meta(torch, "meta"),
              rnn_backward_meta(torch, "cpu"))


def function_class(torch):
    """The autograd.Function over the two ops."""
    class RNN(torch.autograd.Function):
        @staticmethod
        def forward(ctx, cfg, x, *rest):
            mode, layers, bidir, bf, nh = cfg
            hx, params = list(rest[:nh]), list(rest[nh:])
            out, hn, cn, res = torch.ops.dramplan.rnn(
                x, hx, params, mode, layers, bidir, bf, True)
            ctx.cfg = cfg
            ctx.save_for_backward(x, out, res, *rest)
            return out, hn, cn

        @staticmethod
        def backward(ctx, gout, ghn, gcn):
            mode, layers, bidir, bf, nh = ctx.cfg
            x, out, res, *rest = ctx.saved_tensors
            hx, params = list(rest[:nh]), list(rest[nh:])
            if gcn is None or gcn.numel() == 0:
                gcn = torch.zeros_like(ghn)
            grads = torch.ops.dramplan.rnn_backward(
                gout, ghn, gcn, x, out, res, hx, params, mode, layers,
                bidir, bf)
            return (None,) + tuple(grads)
    return RNN


_FN = {}


def run_rnn(torch, kind, x, hx, params, has_biases, layers, dropout, train,
            bidirectional, batch_first):
    define_ops(torch)
    mode = MODES.index(kind)
    grad = torch.is_grad_enabled() and (
        x.requires_grad or any(p.requires_grad for p in params))
    if not grad:
        out, hn, cn, _ = torch.ops.dramplan.rnn(
            x, hx, params, mode, layers, bidirectional, batch_first, False)
    else:
        fn = _FN.get("fn") or function_class(torch)
        _FN["fn"] = fn
        out, hn, cn = fn.apply((mode, layers, bidirectional, batch_first,
                                len(hx)), x, *hx, *params)
    if kind == "lstm":
        return out, hn, cn
    return out, hn


def rule_for(kind):
    def rule(ctx, func, args, kwargs):
        import torch
        if kwargs or len(args) != 9 or not isinstance(args[0], torch.Tensor) \
                or (kind == "lstm") != isinstance(args[1], (tuple, list)):
            refuse("torch." + kind + " (packed sequence or unusual "
                   "arguments)", "not modelled step by step",
                   "pad the sequences (no PackedSequence)")
        x, hx = args[0], args[1]
        hx = list(hx) if isinstance(hx, (tuple, list)) else [hx]
        params = list(args[2])
        if kind == "lstm" and hx[0].shape[-1] != hx[1].shape[-1]:
            refuse("torch.lstm (proj_size)", "not modelled step by step",
                   "an LSTM without proj_size")
        return run_rnn(torch, kind, x, hx, params, *args[3:])
    return rule


torch_rule("torch.lstm")(rule_for("lstm"))
torch_rule("torch.gru")(rule_for("gru"))
torch_rule("torch.rnn_tanh")(rule_for("rnn_tanh"))
torch_rule("torch.rnn_relu")(rule_for("rnn_relu"))


class Steps:
    """One recurrent op's step-by-step tensors and instructions, added to
    the recorder's program.  A tensor is used only once defined: the
    first step defines the sequences and the reserve it writes."""

    def __init__(self, rec, n, outs):
        self.prog, self.name = rec.prog, n.name
        self.pending = set(t for t in outs if t is not None)
        self.rec = rec

    def tid(self, a):
        if a is None or not hasattr(a, "op"):
            return None
        ids = self.rec.tids(a)
        return ids[0] if ids else None

    def new(self, suffix, elems):
        t = self.prog.new_raw(self.name + suffix, elems, 4, True)
        self.pending.add(t)
        return t

    def inst(self, suffix, defs, uses):
        defs = [d for d in defs if d is not None]
        uses = [u for u in uses if u is not None and u not in self.pending]
        self.prog.inst(self.name + suffix, defs, uses)
        self.pending.difference_update(defs)


def out_tids(rec, n, res):
    """The tensor of each of the node's outputs (None: an empty one)."""
    import torch
    ids = dict(rec.ids.get(n, []))
    outs = res if isinstance(res, (tuple, list)) else [res]
    return [ids.get(storage_of(t)[0]) if isinstance(t, torch.Tensor) and
            t.numel() else None for t in outs]


def dims(rec, n, x_arg, h_arg, mode, bidir, bf):
    """(steps, batch, hidden, dirs, gates, kind) of a recurrent op."""
    x, h = rec.env[x_arg], rec.env[h_arg]
    t, b = (x.shape[1], x.shape[0]) if bf else (x.shape[0], x.shape[1])
    kind = MODES[mode]
    return t, b, h.shape[-1], 2 if bidir else 1, GATES[kind], kind


@expander_for("dramplan.rnn")
def expand_forward(rec, n, defs, uses, res):
    x_a, hx_a, p_a, mode, layers, bidir, bf, train = n.args
    T, B, H, D, G, kind = dims(rec, n, x_a, hx_a[0], mode, bidir, bf)
    out, hn, cn, reserve = out_tids(rec, n, res)
    st = Steps(rec, n, [out, hn, cn, reserve])
    hx = [st.tid(a) for a in hx_a]
    params = [st.tid(a) for a in p_a]
    per = len(params) // (layers * D)
    layer_in, last = st.tid(x_a), []
    for L in range(layers):
        lo = out if L == layers - 1 else \
            st.new(".l%d.out" % L, T * B * D * H)
        for d in range(D):
            k = L * D + d
            w = params[k * per:(k + 1) * per]
            last.append(forward_layer(st, L, d, (T, B, H, G, kind),
                                      layer_in, lo, w, hx, reserve))
        layer_in = lo
    st.inst(".hn", [hn, cn], [out] + [c for c in last if c is not None])


def forward_layer(st, L, d, size, layer_in, lo, w, hx, reserve):
    """One layer's (and direction's) steps; returns the last cell
    state."""
    T, B, H, G, kind = size
    h_prev, c_prev = hx[0], hx[1] if len(hx) > 1 else None
    for s in range(T):
        tag = ".l%d%s.t%d" % (L, "r" if d else "", s if d == 0 else T - 1 - s)
        g = st.new(tag + ".gates", B * G * H)
        st.inst(tag + ".gates", [g], [layer_in, h_prev] + w)
        c = st.new(tag + ".c", B * H) if kind == "lstm" else None
        st.inst(tag + ".h", [c, lo, reserve], [g, c_prev, lo, reserve])
        h_prev, c_prev = lo, c
    return c_prev


@expander_for("dramplan.rnn_backward")
def expand_backward(rec, n, defs, uses, res):
    gout_a, ghn_a, gcn_a, x_a, out_a, res_a, hx_a, p_a, mode, layers, \
        bidir, bf = n.args
    T, B, H, D, G, kind = dims(rec, n, x_a, hx_a[0], mode, bidir, bf)
    outs = out_tids(rec, n, res)
    st = Steps(rec, n, outs)
    gx, ghx, gparams = outs[0], outs[1:1 + len(hx_a)], outs[1 + len(hx_a):]
    params = [st.tid(a) for a in p_a]
    reserve, per = st.tid(res_a), len(params) // (layers * D)
    dout, carry = st.tid(gout_a), [st.tid(ghn_a), st.tid(gcn_a)]
    for L in reversed(range(layers)):
        dx = gx if L == 0 else st.new(".l%d.dx" % L, T * B * D * H)
        layer_in = st.tid(x_a) if L == 0 else reserve
        for d in range(D):
            k = L * D + d
            sl = slice(k * per, (k + 1) * per)
            carry = backward_layer(st, L, d, (T, B, H, G, kind), dout, dx,
                                   layer_in, reserve, params[sl],
                                   gparams[sl], carry)
        dout = dx
    st.inst(".dhx", ghx, carry)


def backward_layer(st, L, d, size, dout, dx, layer_in, reserve, w, gw,
                   carry):
    """One layer's (and direction's) steps backward, from the last:
    returns the gradients carried out of its first step (dh, dc)."""
    T, B, H, G, kind = size
    dh, dc = carry[0], carry[1] if kind == "lstm" else None
    for s in range(T):
        t = T - 1 - s if d == 0 else s
        tag = ".l%d%s.t%d" % (L, "r" if d else "", t)
        dg = st.new(tag + ".dgates", B * G * H)
        dc_new = st.new(tag + ".dc", B * H) if kind == "lstm" else None
        st.inst(tag + ".dgates", [dg, dc_new], [dout, reserve, dh, dc])
        dh = st.new(tag + ".dh", B * H)
        st.inst(tag + ".dh", [dh, dx] + gw,
                [dg, reserve, layer_in, dx] + w + gw)
        dc = dc_new
    return [dh, dc]
