# A T5-style encoder-decoder in plain PyTorch, random weights: two inputs
# (source and target token ids), RMS layer norms without bias, a learned
# relative-position bias, decoder self-attention under a causal mask and
# cross-attention over the encoder's output, a ReLU MLP, a tied head.
#
#   dramplan-import examples/t5.py --seq 512 --batch 8 --train
#   dramplan-import examples/t5.py --seq 512 --input src:int64:batch,1024
#   dramplan-import examples/t5.py:tiny ...    (2+2 layers, 64 wide: tests)
#
# make_model() is T5-base's shape (12+12 layers, 768 wide, 12 heads, MLP
# 3,072, a vocabulary of 32,128).
import torch
import torch.nn as nn

FULL = dict(layers=12, width=768, heads=12, hidden=3072, vocab=32128,
            buckets=32)
TINY = dict(layers=2, width=64, heads=4, hidden=128, vocab=256, buckets=8)


class Norm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) \
            * self.weight


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (
            nn.Linear(width, width, bias=False) for _ in range(4))

    def forward(self, x, mem, bias):
        b, t, w = x.shape
        s, h = mem.shape[1], self.heads

        def split(y, n):
            return y.view(b, n, h, w // h).transpose(1, 2)
        q, k, v = split(self.q(x), t), split(self.k(mem), s), \
            split(self.v(mem), s)
        att = q @ k.transpose(-2, -1)
        if bias is not None:
            att = att + bias
        y = att.softmax(-1) @ v
        return self.o(y.transpose(1, 2).reshape(b, t, w))


class Layer(nn.Module):
    def __init__(self, width, heads, hidden, cross):
        super().__init__()
        self.n1, self.self_att = Norm(width), Attention(width, heads)
        self.cross = Attention(width, heads) if cross else None
        self.n2 = Norm(width) if cross else None
        self.n3 = Norm(width)
        self.fc1 = nn.Linear(width, hidden, bias=False)
        self.fc2 = nn.Linear(hidden, width, bias=False)

    def forward(self, x, bias, mem=None):
        y = self.n1(x)
        x = x + self.self_att(y, y, bias)
        if self.cross is not None:
            x = x + self.cross(self.n2(x), mem, None)
        return x + self.fc2(self.fc1(self.n3(x)).relu())


class T5(nn.Module):
    def __init__(self, layers, width, heads, hidden, vocab, buckets):
        super().__init__()
        self.buckets = buckets
        self.embed = nn.Embedding(vocab, width)
        self.enc_bias = nn.Embedding(2 * buckets - 1, heads)
        self.dec_bias = nn.Embedding(2 * buckets - 1, heads)
        self.enc = nn.ModuleList(Layer(width, heads, hidden, False)
                                 for _ in range(layers))
        self.dec = nn.ModuleList(Layer(width, heads, hidden, True)
                                 for _ in range(layers))
        self.enc_norm, self.dec_norm = Norm(width), Norm(width)

    def bias(self, table, n, causal, device):
        i = torch.arange(n, device=device)
        rel = (i[None, :] - i[:, None]).clamp(1 - self.buckets,
                                              self.buckets - 1)
        b = table(rel + self.buckets - 1).permute(2, 0, 1)[None]
        if causal:
            b = b.masked_fill(i[None, :] > i[:, None], float("-inf"))
        return b

    def forward(self, src, tgt):
        x = self.embed(src)
        bias = self.bias(self.enc_bias, src.shape[1], False, src.device)
        for layer in self.enc:
            x = layer(x, bias)
        mem = self.enc_norm(x)
        y = self.embed(tgt)
        bias = self.bias(self.dec_bias, tgt.shape[1], True, tgt.device)
        for layer in self.dec:
            y = layer(y, bias, mem)
        return self.dec_norm(y) @ self.embed.weight.t()


input_spec = ["src:int64:batch,seq", "tgt:int64:batch,seq"]


def make_model():
    return T5(**FULL)


def tiny():
    return T5(**TINY)
