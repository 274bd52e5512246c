# An input whose value the trace needs: n, a tensor, sets a length by its
# value (data-dependent), which make_fx cannot trace; given as a Python
# integer (--input n:int:VALUE) it is a constant of the trace.  The
# one-line error says which inputs and what to pass.
import torch.nn as nn

input_spec = ["tokens:int64:batch,seq", "n:int64:"]


class Lengths(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 8)

    def forward(self, tokens, n):
        return self.emb(tokens[:, :int(n)])


model = Lengths
