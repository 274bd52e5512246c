# A Mistral/Llama-style decoder in plain PyTorch, random weights: RMSNorm,
# rotary positions computed in forward() (torch.outer of the positions and
# the frequencies), grouped-query attention by repeat_interleave, a
# sliding-window causal mask, a SwiGLU MLP and one packed KV cache
# [layers, 2 (keys, values), batch, kv heads, max, head dim].
#
#   dramplan-import examples/mistral.py --phase prefill --seq 2048 --max-len 2048
#   dramplan-import examples/mistral.py --phase decode --cache-len 2047 --max-len 2048
#   dramplan-import examples/mistral.py:tiny ...      (2 layers, 64 wide: tests)
#
# make_model() is the 7B shape (32 layers, 4,096 wide, 32 query heads over
# 8 key/value heads, MLP 14,336 wide): 7.2 billion parameters, 29 GB in
# float32 on the CPU.  Its factories take `device`: dramplan-import passes
# device="meta", so the network is built with no memory for its weights.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from decoder_lm import DecoderLM

FULL = dict(layers=32, width=4096, heads=32, kv_heads=8, hidden=14336,
            vocab=32000, window=4096)
TINY = dict(layers=2, width=64, heads=4, kv_heads=2, hidden=160,
            vocab=256, window=6)


class RMSNorm(nn.Module):
    def __init__(self, width, device=None, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width, device=device))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) \
            * self.weight


def rotary(x, pos, theta=10000.0):
    """Each pair of halves turned by its position's angle, the angles
    computed here from the positions (no table)."""
    d = x.shape[-1]
    inv = 1.0 / theta ** (torch.arange(0, d, 2, device=x.device).float() / d)
    ang = torch.outer(pos.float(), inv)
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., :d // 2], x[..., d // 2:]
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)


class Block(nn.Module):
    def __init__(self, width, heads, kv_heads, hidden, window, device):
        super().__init__()
        d = width // heads
        self.heads, self.kv_heads, self.d, self.window = heads, kv_heads, \
            d, window

        def lin(i, o):
            return nn.Linear(i, o, bias=False, device=device)
        self.norm1 = RMSNorm(width, device)
        self.wq, self.wk = lin(width, heads * d), lin(width, kv_heads * d)
        self.wv, self.wo = lin(width, kv_heads * d), lin(heads * d, width)
        self.norm2 = RMSNorm(width, device)
        self.w1, self.w3 = lin(width, hidden), lin(width, hidden)
        self.w2 = lin(hidden, width)

    def attend(self, x, cache, start):
        b, t, _ = x.shape
        h, g, d = self.heads, self.kv_heads, self.d
        pos = torch.arange(start, start + t, device=x.device)
        q = rotary(self.wq(x).view(b, t, h, d).transpose(1, 2), pos)
        k = rotary(self.wk(x).view(b, t, g, d).transpose(1, 2), pos)
        v = self.wv(x).view(b, t, g, d).transpose(1, 2)
        if cache is not None:
            cache[0, :, :, start:start + t] = k
            cache[1, :, :, start:start + t] = v
            k, v = cache[0, :, :, :start + t], cache[1, :, :, :start + t]
        k = k.repeat_interleave(h // g, dim=1)
        v = v.repeat_interleave(h // g, dim=1)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d)
        j = torch.arange(k.shape[2], device=x.device)
        far = (j[None, :] > pos[:, None]) | \
            (j[None, :] <= pos[:, None] - self.window)
        att = att.masked_fill(far, float("-inf")).softmax(dim=-1)
        return self.wo((att @ v).transpose(1, 2).reshape(b, t, h * d))

    def forward(self, x, cache, start):
        x = x + self.attend(self.norm1(x), cache, start)
        y = self.norm2(x)
        return x + self.w2(F.silu(self.w1(y)) * self.w3(y))


class Mistral(DecoderLM):
    def __init__(self, layers, width, heads, kv_heads, hidden, vocab,
                 window, device=None):
        super().__init__()
        self.layers, self.kv_heads, self.head_dim = layers, kv_heads, \
            width // heads
        self.embed = nn.Embedding(vocab, width, device=device)
        self.blocks = nn.ModuleList(
            Block(width, heads, kv_heads, hidden, window, device)
            for _ in range(layers))
        self.norm = RMSNorm(width, device)
        self.head = nn.Linear(width, vocab, bias=False, device=device)

    def forward(self, tokens, start=0, kv_cache=None):
        x = self.embed(tokens)
        return self.run_blocks(x, self.norm, (), (kv_cache,), start)

    def cache_spec(self):
        """One packed cache, kv_cache [layers, 2 (keys, values), batch,
        kv heads, max, head dim]."""
        return ["kv_cache:float:%d,2,batch,%d,max,%d"
                % (self.layers, self.kv_heads, self.head_dim)]


def make_model(device=None):
    return Mistral(**FULL, device=device)


def tiny(device=None):
    return Mistral(**TINY, device=device)
