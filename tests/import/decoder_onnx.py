# dramplan-import's tests: ONNX graphs of the ops a decoder's export
# computes its positions and masks with, written with onnx.helper
# (opset 17) into DIR:
#   decoder_ops.onnx  x[seq, 16]: positions by Range over Shape, rotary
#                     angles by Einsum (torch.outer), a causal mask by
#                     ConstantOfShape + Trilu + Where, CumSum, a Reshape
#                     to a computed shape, an Expand to a computed shape
#   nonzero.onnx      NonZero: a data-dependent shape, refused
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def const(name, v):
    return h.make_node("Constant", [], [name], name=name,
                       value=numpy_helper.from_array(np.array(v), name))


def node(op, ins, outs, **kw):
    return h.make_node(op, ins, [outs], name=outs, **kw)


nodes = [
    const("zero", np.int64(0)), const("one", np.int64(1)),
    const("ax0", np.array([0], np.int64)), const("two", [2]),
    const("m1", [-1]), const("three_16", [3, 16]),
    const("ninf", np.float32(-1e9)), const("fzero", np.float32(0)),
    node("Shape", ["x"], "s"), node("Gather", ["s", "zero"], "n"),
    node("Range", ["zero", "n", "one"], "pos"),
    node("Cast", ["pos"], "posf", to=T.FLOAT),
    node("Einsum", ["posf", "inv"], "ang", equation="i,j->ij"),
    node("Unsqueeze", ["n", "ax0"], "n1"),
    node("Concat", ["n1", "n1"], "nn", axis=0),
    node("ConstantOfShape", ["nn"], "ones",
         value=numpy_helper.from_array(np.array([1], np.float32))),
    node("Trilu", ["ones", "one"], "tri", upper=1),
    node("Equal", ["tri", "fzero"], "keep"),
    node("Where", ["keep", "ang", "ninf"], "w"),
    node("CumSum", ["x", "zero"], "cs"),
    node("Concat", ["n1", "two", "m1"], "tgt", axis=0),
    node("Reshape", ["cs", "tgt"], "r"),
    node("Unsqueeze", ["x", "one"], "xu"),
    node("Concat", ["n1", "three_16"], "etgt", axis=0),
    node("Expand", ["xu", "etgt"], "e"),
]
inv = numpy_helper.from_array(np.ones(8, np.float32), "inv")
g = h.make_graph(nodes, "decoder_ops",
                 [h.make_tensor_value_info("x", T.FLOAT, ["seq", 16])],
                 [h.make_tensor_value_info(o, T.FLOAT, None)
                  for o in ("w", "r", "e")], [inv])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]),
          os.path.join(out, "decoder_ops.onnx"))
g = h.make_graph([node("NonZero", ["x"], "nz")], "nonzero",
                 [h.make_tensor_value_info("x", T.FLOAT, [4])],
                 [h.make_tensor_value_info("nz", T.INT64, None)])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]),
          os.path.join(out, "nonzero.onnx"))
