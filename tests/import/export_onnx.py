# dramplan-import's tests: a network of a Python file exported to ONNX by
# torch.onnx (opset 17), in inference mode with batch norm kept as an op.
#   export_onnx.py FILE.py[:ATTR] OUT.onnx [NAME:DTYPE:SHAPE ...]
# Parameters and buffers are made random first: torch.onnx folds
# initializers with equal values into one, which a network at its
# initial values (batch norm's ones and zeros) has plenty of.  Shapes are
# concrete (integers only); the default input is the file's input_shape
# with batch 1.
import importlib.util
import os
import sys
import warnings

import torch

warnings.simplefilter("ignore")
path, out = sys.argv[1], sys.argv[2]
attr = "model"
if ".py:" in path:
    path, attr = path.rsplit(":", 1)
spec = importlib.util.spec_from_file_location("net", path)
mod = importlib.util.module_from_spec(spec)
# the file's folder on the module path, as dramplan-import loads it: the
# examples and the test networks import their shared modules by name
sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
spec.loader.exec_module(mod)
obj = getattr(mod, attr, None) or getattr(mod, "make_model")
net = obj() if isinstance(obj, type) or not isinstance(obj, torch.nn.Module) \
    else obj
net.eval()
torch.manual_seed(0)
with torch.no_grad():
    for t in list(net.parameters()) + list(net.buffers()):
        if t.is_floating_point():
            t.copy_(torch.rand_like(t) + 0.5)
names, args = [], []
for s in sys.argv[3:] or ["x:float:" + ",".join(
        str(d) for d in [1] + list(mod.input_shape))]:
    name, dtype, shape = s.split(":")
    shape = [int(d) for d in shape.split(",")]
    names.append(name)
    if dtype == "float":
        args.append(torch.randn(shape))
    elif dtype == "bool":
        args.append(torch.ones(shape, dtype=torch.bool))
    else:
        args.append(torch.randint(0, 2, shape, dtype=getattr(torch, dtype)))


class Call(torch.nn.Module):
    """forward()'s other parameters keep their defaults (torch.onnx would
    make a Python int default an input of unknown value).  Its parameter
    names get a "net." prefix: only where needed."""
    def __init__(self):
        super().__init__()
        self.net = net

    def forward(self, *xs):
        return self.net(**dict(zip(names, xs)))


import inspect  # noqa: E402
more = len(inspect.signature(net.forward).parameters) > len(names)
torch.onnx.export(Call() if more else net, tuple(args), out, input_names=names, opset_version=17,
                  training=torch.onnx.TrainingMode.PRESERVE,
                  do_constant_folding=True)
