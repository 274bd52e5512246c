# A GPT-2-small-shaped decoder in plain PyTorch, random weights:
# 12 layers, 768 wide, 12 heads, a vocabulary of 50,257 tokens, 1,024
# learned positions, pre-norm blocks, a GELU MLP four times as wide, the
# head tied to the token embedding.  No download: dramplan-import builds
# it and runs it on meta tensors.
#
#   dramplan-import examples/gpt2.py --train --batch 8 --seq 512
#   dramplan-import examples/gpt2.py --phase prefill --seq 2048 --max-len 2048
#   dramplan-import examples/gpt2.py --phase decode --cache-len 2047 --max-len 2048
#   dramplan-import examples/gpt2.py:tiny ...     (2 layers, 64 wide: tests)
#
# With a KV cache (prefill, decode) forward() takes the cache tensors,
# k_cache and v_cache [layers, batch, heads, max, head dim], writes the
# step's keys and values at positions start .. start+seq-1 in place and
# attends over positions 0 .. start+seq-1; it returns the last position's
# logits, as a serving loop does.  Without a cache (training, plain
# inference) it returns every position's.
#
# ranks=N builds one rank's share of an N-way tensor-parallel network
# (dramplan-import --cores N --phase ...): each core has 1/N of the heads
# and of the MLP, the attention's output projection and the MLP's down
# projection give partial sums, all-reduced over the cores (the
# embeddings and the head are replicated, the bias of a reduced layer
# added once in a real runtime: the shapes are the same).
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from decoder_lm import DecoderLM, all_reduce, through_cache

FULL = dict(layers=12, width=768, heads=12, vocab=50257, positions=1024)
TINY = dict(layers=2, width=64, heads=4, vocab=256, positions=64)


class Block(nn.Module):
    def __init__(self, width, heads, ranks=1):
        super().__init__()
        self.heads, self.ranks = heads // ranks, ranks	# this rank's heads
        part = width // ranks
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * part)
        self.proj = nn.Linear(part, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * part)
        self.out = nn.Linear(4 * part, width)

    def reduce(self, x):
        return all_reduce(x) if self.ranks > 1 else x

    def forward(self, x, k_cache, v_cache, start):
        b, t, width = x.shape
        h = self.heads
        c = self.proj.in_features	# this rank's share of the width
        d = c // h
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q = q.view(b, t, h, d).transpose(1, 2)
        k = k.view(b, t, h, d).transpose(1, 2)
        v = v.view(b, t, h, d).transpose(1, 2)
        k, v = through_cache(k, v, k_cache, v_cache, start)
        n = k.shape[2]
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
        if t > 1:	# causal: position start+i sees 0 .. start+i
            mask = torch.full((t, n), float("-inf"), device=x.device)
            att = att + mask.triu(start + 1)
        att = att.softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        x = x + self.reduce(self.proj(y))
        return x + self.reduce(self.out(F.gelu(self.fc(self.ln2(x)),
                                               approximate="tanh")))


class GPT(DecoderLM):
    def __init__(self, layers, width, heads, vocab, positions, ranks=1):
        super().__init__()
        if heads % ranks:
            raise ValueError("%d heads do not split over %d ranks"
                             % (heads, ranks))
        # every head has its own keys and values
        self.layers, self.kv_heads = layers, heads // ranks
        self.head_dim = width // heads
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(positions, width)
        self.blocks = nn.ModuleList(Block(width, heads, ranks)
                                    for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.wte.weight	# tied, as in GPT-2

    def forward(self, tokens, start=0, k_cache=None, v_cache=None):
        b, t = tokens.shape
        # past the table's length (a 2,048-token prefill) the positions
        # wrap: the shapes are what a longer table would give
        pos = torch.arange(start, start + t, device=tokens.device) \
            % self.wpe.num_embeddings
        x = self.wte(tokens) + self.wpe(pos)
        return self.run_blocks(x, self.ln_f, (), (k_cache, v_cache), start)


def make_model(ranks=1):
    return GPT(**FULL, ranks=ranks)


def tiny(ranks=1):
    return GPT(**TINY, ranks=ranks)
