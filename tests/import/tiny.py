# A small residual CNN for dramplan-import's tests: convolutions, batch
# norm, an in-place ReLU, a residual add, a flatten (a view) and a linear
# layer. `model` may be a class: dramplan-import instantiates it.
import torch.nn as nn
from nets import TwoConvs

input_shape = [3, 16, 16]


class TinyNet(TwoConvs):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        h = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(h)) + h
        return self.fc(self.pool(self.relu(y)).flatten(1))


model = TinyNet
