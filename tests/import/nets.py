# The layers several of dramplan-import's test networks are built on; each
# test file gives its own forward().  The importer puts a file's folder on
# the module path while it loads it, so the files import this one by name.
import torch.nn as nn


class Square(nn.Module):
    """One linear layer, fc, as wide in as out: `width` of the subclass."""
    width = 8

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(self.width, self.width)


class TwoConvs(nn.Module):
    """The stem of tiny.py and convnet.py: conv1 and conv2, 3x3 convolutions
    (3 to 8 to 8 channels, no bias: batch norm follows), and their batch
    norms bn1 and bn2."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
