# A small CNN for the PyTorch-vs-ONNX comparison: the same ops
# as tiny.py but no in-place op, which ONNX (one value per output) cannot
# express, so both front ends see the same activations.
import torch.nn as nn
from nets import TwoConvs

input_shape = [3, 16, 16]


class ConvNet(TwoConvs):
    def __init__(self):
        super().__init__()
        self.conv3 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        h = self.bn1(self.conv1(x)).relu()
        y = (self.bn2(self.conv2(h)) + h).relu()
        return self.fc(self.pool(self.conv3(y).relu()).flatten(1))


model = ConvNet
