# A small language model, as a new user writes it: an nn.Embedding over token
# ids, two nn.TransformerEncoderLayers, a linear head.  Token ids come in
# by position (input_shape, no dtype): dramplan-import sees that they go
# into an nn.Embedding and draws int64 ids below its num_embeddings.
import torch.nn as nn

input_shape = [16]
LAYERS, WIDTH, HEADS, FF, VOCAB = 2, 32, 4, 64, 100


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, WIDTH)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(WIDTH, HEADS, FF, dropout=0.0,
                                       batch_first=True)
            for _ in range(LAYERS))
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, x):
        h = self.emb(x)
        for layer in self.layers:
            h = layer(h)
        return self.head(h)


model = Encoder
