# A 4-layer LSTM language model in plain PyTorch, random weights: token
# embedding, nn.LSTM (batch first), a linear head.
#
#   dramplan-import examples/lstm.py --train --batch 8 --seq 256
#   dramplan-import examples/lstm.py --seq 2048
#   dramplan-import examples/lstm.py:tiny ...    (2 layers, 32 wide: tests)
#
# dramplan-import models nn.LSTM and nn.GRU step by step (the gates, the
# cell and hidden states of each time step) without tracing each step:
# its import time is linear in the sequence length.  The factories take
# `device`: dramplan-import builds the network on the meta device.
import torch.nn as nn

FULL = dict(layers=4, width=2048, vocab=32000)
TINY = dict(layers=2, width=32, vocab=100)


class LM(nn.Module):
    def __init__(self, layers, width, vocab, cell="lstm", device=None):
        super().__init__()
        self.embed = nn.Embedding(vocab, width, device=device)
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn(width, width, layers, batch_first=True, device=device)
        self.head = nn.Linear(width, vocab, device=device)

    def forward(self, tokens):
        y, _ = self.rnn(self.embed(tokens))
        return self.head(y)


input_spec = ["tokens:int64:batch,seq"]


def make_model(device=None):
    return LM(**FULL, device=device)


def gru(device=None):
    return LM(**FULL, cell="gru", device=device)


def tiny(device=None):
    return LM(**TINY, device=device)


def tiny_gru(device=None):
    return LM(**TINY, cell="gru", device=device)
