# Mixtral-style mixture-of-experts layers in plain PyTorch, random
# weights: a router picks the top 2 of 8 SwiGLU experts for each token.
#
#   sparse: each expert gathers its tokens (torch.where on the routing,
#           indexing), computes, and adds its result back (index_add_):
#           the tokens an expert takes depend on the router's values
#   dense:  the routing weights scattered into a [tokens, experts] gate
#           matrix, every expert run on every token
#
#   dramplan-import examples/moe.py:dense --seq 512
#   dramplan-import examples/moe.py:sparse --seq 512 --capacity-factor 1.25
#   dramplan-import examples/moe.py:tiny_sparse ...   (tests)
#
# The sparse form has data-dependent shapes: dramplan-import refuses it
# unless given a capacity factor (each expert takes at most capacity x
# tokens x top-k / experts tokens, as in GShard and Switch).  The full
# size is 4 Mixtral-shaped layers (4,096 wide, 8 experts 14,336 wide:
# 5.6 billion parameters, 22.5 GB in float32); the factories take
# `device`, so dramplan-import builds them on the meta device.
import torch
import torch.nn as nn
import torch.nn.functional as F

FULL = dict(layers=4, width=4096, hidden=14336, experts=8, top=2)
TINY = dict(layers=2, width=32, hidden=64, experts=4, top=2)


class Expert(nn.Module):
    def __init__(self, width, hidden, device=None):
        super().__init__()
        self.w1 = nn.Linear(width, hidden, bias=False, device=device)
        self.w3 = nn.Linear(width, hidden, bias=False, device=device)
        self.w2 = nn.Linear(hidden, width, bias=False, device=device)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class MoE(nn.Module):
    def __init__(self, width, hidden, experts, top, sparse, device=None):
        super().__init__()
        self.top, self.sparse = top, sparse
        self.num_experts = experts
        self.router = nn.Linear(width, experts, bias=False, device=device)
        self.experts = nn.ModuleList(Expert(width, hidden, device)
                                     for _ in range(experts))

    def forward(self, x):
        b, t, w = x.shape
        x = x.reshape(b * t, w)
        probs = self.router(x).softmax(-1)
        weight, chosen = probs.topk(self.top, dim=-1)
        if self.sparse:
            out = torch.zeros_like(x)
            for e, expert in enumerate(self.experts):
                idx, slot = torch.where(chosen == e)
                y = expert(x[idx]) * weight[idx, slot, None]
                out.index_add_(0, idx, y)
        else:
            gates = torch.zeros_like(probs).scatter(1, chosen, weight)
            out = sum(gates[:, e, None] * expert(x)
                      for e, expert in enumerate(self.experts))
        return out.view(b, t, w)


class Net(nn.Module):
    def __init__(self, layers, width, hidden, experts, top, sparse,
                 device=None):
        super().__init__()
        self.num_experts = experts
        self.layers = nn.ModuleList(MoE(width, hidden, experts, top, sparse,
                                        device) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(x)
        return x




def sparse(device=None):
    return _net(FULL, True, device)


def dense(device=None):
    return _net(FULL, False, device)


def tiny_sparse(device=None):
    return _net(TINY, True, device)


def tiny_dense(device=None):
    return _net(TINY, False, device)


def _net(cfg, is_sparse, device):
    net = Net(**cfg, sparse=is_sparse, device=device)
    net.input_spec = ["x:float:batch,seq,%d" % cfg["width"]]
    return net


make_model = sparse
