# Data-dependent control flow: torch.fx cannot trace it, and
# dramplan-import must say where in one line.
import torch.nn as nn

input_shape = [4]


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        if x.sum() > 0:
            return self.fc(x)
        return x


model = Branchy()
