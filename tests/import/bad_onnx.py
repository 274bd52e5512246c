# dramplan-import's tests: small ONNX graphs written with onnx.helper (no
# PyTorch needed), two good and five bad ones, into DIR:
#   good.onnx       x[2,64] @ w[64,64] -> relu -> y (opset 13)
#   truncated.onnx  good.onnx cut in the middle of its weights
#   cycle.onnx      two nodes that read each other's outputs
#   unknown.onnx    a node of an operator ONNX does not define
#   dynamic.onnx    good.onnx with the first input dimension named "N"
#   noshape.onnx    ConstantOfShape of an input's values: no static shape
#   folded.onnx     a good graph whose shapes need values folded (below)
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def graph(nodes, dims0=2, inputs=None):
    w = numpy_helper.from_array(np.ones((64, 64), np.float32), "w")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [dims0, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph(nodes, "g", inputs or [x], [y], [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def save(m, name):
    onnx.save(m, os.path.join(out, name))


mm = helper.make_node("MatMul", ["x", "w"], ["h"], name="mm")
relu = helper.make_node("Relu", ["h"], ["y"], name="relu")
save(graph([mm, relu]), "good.onnx")
data = open(os.path.join(out, "good.onnx"), "rb").read()
with open(os.path.join(out, "truncated.onnx"), "wb") as f:
    f.write(data[:len(data) // 2])
a = helper.make_node("Add", ["x", "b"], ["a"], name="loop_a")
b = helper.make_node("Relu", ["a"], ["b"], name="loop_b")
y = helper.make_node("MatMul", ["a", "w"], ["y"], name="mm")
save(graph([a, b, y]), "cycle.onnx")
f = helper.make_node("Frobnicate", ["h"], ["y"], name="frob")
save(graph([mm, f]), "unknown.onnx")
save(graph([mm, relu], dims0="N"), "dynamic.onnx")
s = helper.make_tensor_value_info("s", TensorProto.INT64, [2])
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])
c = helper.make_node("ConstantOfShape", ["s"], ["c"], name="fill")
y = helper.make_node("Add", ["c", "x"], ["y"], name="add")
save(graph([c, y], inputs=[x, s]), "noshape.onnx")
# and one good graph whose shapes need values computed from constants
# (torch.onnx writes ViT's class token so): Expand's target shape is
# ConstantOfShape([2]) * [3, 4]; the importer folds it, y is [3, 4]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
two = helper.make_node("Constant", [], ["two"], name="two",
                       value=numpy_helper.from_array(np.array([2], np.int64)))
ones = helper.make_node("ConstantOfShape", ["two"], ["ones"], name="ones",
                        value=numpy_helper.from_array(np.array([1], np.int64)))
dims = helper.make_node("Constant", [], ["dims"], name="dims",
                        value=numpy_helper.from_array(np.array([3, 4], np.int64)))
tgt = helper.make_node("Mul", ["ones", "dims"], ["tgt"], name="tgt")
exp = helper.make_node("Expand", ["x", "tgt"], ["e"], name="expand")
y = helper.make_node("MatMul", ["e", "w4"], ["y"], name="mm")
w4 = numpy_helper.from_array(np.ones((4, 4), np.float32), "w4")
g = helper.make_graph([two, ones, dims, tgt, exp, y], "g", [x],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                     None)], [w4])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
     "folded.onnx")
