# A BERT-base-shaped encoder in plain PyTorch, random weights:
# 12 post-norm layers (torch.nn.TransformerEncoderLayer, GELU), 768 wide,
# 12 heads, an MLP 3,072 wide, a vocabulary of 30,522, 512 learned
# positions, two token types, and an attention mask over padding.  No
# download.
#
#   dramplan-import examples/bert.py --seq 512 --batch 8 --train
#   dramplan-import examples/bert.py --seq 2048     (positions wrap: shapes only)
#   dramplan-import examples/bert.py:tiny --seq 16 (2 layers, 64 wide: tests)
#
# forward(tokens, mask): token ids [batch, seq] and a boolean mask [batch,
# seq], True where a token is real and False on padding (the key padding
# mask of every layer's attention).  It returns the sequence's hidden
# states and the pooled first token.
import torch
import torch.nn as nn

FULL = dict(layers=12, width=768, heads=12, hidden=3072, vocab=30522,
            positions=512)
TINY = dict(layers=2, width=64, heads=4, hidden=128, vocab=256,
            positions=64)


class Bert(nn.Module):
    def __init__(self, layers, width, heads, hidden, vocab, positions):
        super().__init__()
        self.positions = positions
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(positions, width)
        self.typ = nn.Embedding(2, width)
        self.norm = nn.LayerNorm(width)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(width, heads, hidden, dropout=0.1,
                                       activation="gelu", batch_first=True)
            for _ in range(layers))
        self.pool = nn.Linear(width, width)

    def forward(self, tokens, mask):
        b, t = tokens.shape
        # past the table's length the positions wrap: the shapes are what
        # a longer table would give
        pos = torch.arange(t, device=tokens.device) % self.positions
        typ = torch.zeros_like(tokens)
        x = self.norm(self.tok(tokens) + self.pos(pos) + self.typ(typ))
        pad = ~mask	# torch.onnx (1.13) exports ~ but not logical_not
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=pad)
        return x, torch.tanh(self.pool(x[:, 0]))

    input_spec = ["tokens:int64:batch,seq", "mask:bool:batch,seq"]


def make_model():
    return Bert(**FULL)


def tiny():
    return Bert(**TINY)
