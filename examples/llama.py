# A Llama-shaped decoder in plain PyTorch, random weights:
# 8 layers, 2,048 wide, 16 query heads sharing 4 key/value heads
# (grouped-query attention), RMSNorm, rotary positions, a SwiGLU MLP 5,632
# wide, a vocabulary of 32,000, an untied head.  No download.
#
#   dramplan-import examples/llama.py --train --batch 8 --seq 512
#   dramplan-import examples/llama.py --phase prefill --seq 2048 --max-len 2048
#   dramplan-import examples/llama.py --phase decode --cache-len 2047 --max-len 2048
#   dramplan-import examples/llama.py:tiny ...     (2 layers, 64 wide: tests)
#
# The KV cache, k_cache and v_cache [layers, batch, kv heads, max, head
# dim], holds the key/value heads only (a quarter of the query heads'
# size); the step writes its keys and values in place at start ..
# start+seq-1.
#
# ranks=N builds one rank's share of an N-way tensor-parallel network
# (dramplan-import --cores N --phase ...): 1/N of the query and key/value
# heads and of the MLP per core, the output and down projections' partial
# sums all-reduced over the cores; embeddings and head replicated.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from decoder_lm import DecoderLM, all_reduce, through_cache

FULL = dict(layers=8, width=2048, heads=16, kv_heads=4, hidden=5632,
            vocab=32000, positions=4096)
TINY = dict(layers=2, width=64, heads=4, kv_heads=2, hidden=160,
            vocab=256, positions=64)


class RMSNorm(nn.Module):
    def __init__(self, width, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) \
            * self.weight


def rotate(x, cos, sin):
    """Rotary positions: each pair of halves turned by its angle."""
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)


class Block(nn.Module):
    def __init__(self, width, heads, kv_heads, hidden, ranks=1):
        super().__init__()
        d = width // heads
        # this rank's heads and MLP
        heads, kv_heads, hidden = heads // ranks, kv_heads // ranks, \
            hidden // ranks
        self.heads, self.kv_heads, self.d, self.ranks = heads, kv_heads, d, \
            ranks
        self.norm1 = RMSNorm(width)
        self.wq = nn.Linear(width, heads * d, bias=False)
        self.wk = nn.Linear(width, kv_heads * d, bias=False)
        self.wv = nn.Linear(width, kv_heads * d, bias=False)
        self.wo = nn.Linear(heads * d, width, bias=False)
        self.norm2 = RMSNorm(width)
        self.w1 = nn.Linear(width, hidden, bias=False)	# gate
        self.w3 = nn.Linear(width, hidden, bias=False)	# up
        self.w2 = nn.Linear(hidden, width, bias=False)	# down

    def reduce(self, x):
        return all_reduce(x) if self.ranks > 1 else x

    def forward(self, x, cos, sin, k_cache, v_cache, start):
        b, t, _ = x.shape
        h, g, d = self.heads, self.kv_heads, self.d
        y = self.norm1(x)
        q = rotate(self.wq(y).view(b, t, h, d).transpose(1, 2), cos, sin)
        k = rotate(self.wk(y).view(b, t, g, d).transpose(1, 2), cos, sin)
        v = self.wv(y).view(b, t, g, d).transpose(1, 2)
        k, v = through_cache(k, v, k_cache, v_cache, start)
        n = k.shape[2]
        # each key/value head serves h // g query heads
        k = k[:, :, None].expand(b, g, h // g, n, d).reshape(b, h, n, d)
        v = v[:, :, None].expand(b, g, h // g, n, d).reshape(b, h, n, d)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
        if t > 1:
            mask = torch.full((t, n), float("-inf"), device=x.device)
            att = att + mask.triu(start + 1)
        att = att.softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, h * d)
        x = x + self.reduce(self.wo(y))
        y = self.norm2(x)
        return x + self.reduce(self.w2(F.silu(self.w1(y)) * self.w3(y)))


class Llama(DecoderLM):
    def __init__(self, layers, width, heads, kv_heads, hidden, vocab,
                 positions, ranks=1):
        super().__init__()
        if kv_heads % ranks or hidden % ranks:
            raise ValueError("%d key/value heads (MLP %d) do not split over "
                             "%d ranks" % (kv_heads, hidden, ranks))
        self.layers, self.kv_heads = layers, kv_heads // ranks
        self.head_dim = d = width // heads
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList(Block(width, heads, kv_heads, hidden,
                                          ranks) for _ in range(layers))
        self.norm = RMSNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
        ang = torch.outer(torch.arange(positions).float(), inv)
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)

    def forward(self, tokens, start=0, k_cache=None, v_cache=None):
        b, t = tokens.shape
        cos, sin = self.cos[start:start + t], self.sin[start:start + t]
        x = self.embed(tokens)
        return self.run_blocks(x, self.norm, (cos, sin), (k_cache, v_cache),
                               start)


def make_model(ranks=1):
    return Llama(**FULL, ranks=ranks)


def tiny(ranks=1):
    return Llama(**TINY, ranks=ranks)
