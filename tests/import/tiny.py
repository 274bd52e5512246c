# A small residual CNN for dramplan-import's tests: convolutions, batch
# norm, an in-place ReLU, a residual add, a flatten (a view) and a linear
# layer. `model` may be a class: dramplan-import instantiates it.
import torch.nn as nn

input_shape = [3, 16, 16]


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        h = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(h)) + h
        return self.fc(self.pool(self.relu(y)).flatten(1))


model = TinyNet
