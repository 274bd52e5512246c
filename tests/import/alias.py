# Views and in-place ops share a storage: dramplan-import makes them one
# tensor. fc's result, its view z, the in-place ReLU on z: one tensor
# "fc"; the product is a new tensor, the output.
from nets import Square

input_shape = [8]


class Alias(Square):
    width = 8

    def forward(self, x):
        y = self.fc(x)
        z = y.view(-1)
        z.relu_()
        return z.view(x.shape[0], 8) * 2


def make_model():
    return Alias()
