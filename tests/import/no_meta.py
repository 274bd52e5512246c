# An op with no meta kernel in PyTorch 1.13 and no rule of the importer
# (torch.histc): the import stops with one line naming it and the
# remedies, and runs on the CPU only under --allow-cpu.
import torch
import torch.nn as nn

input_shape = [16]


class Hist(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        return self.fc(x) + torch.histc(x, bins=16)


model = Hist
