# dramplan-import's unit tests (unittest), per module and per registry
# rule: run by test_import.sh as one TAP line, on the source tree's
# package.  Tiny tensors only: the whole run takes a few seconds.
#   units.py SRC_PACKAGE_DIR
import sys
import unittest

sys.path.insert(0, sys.argv.pop(1))
import dramplan_import as di  # noqa: E402
from dramplan_import import errors, registry, spec, writer  # noqa: E402
from dramplan_import.program import Program, short  # noqa: E402


class Spec(unittest.TestCase):
    def test_parse(self):
        sp = spec.parse_spec("k:float:2,batch,cache+seq", "t", di.Usage)
        self.assertEqual(sp["dims"], [[2], ["batch"], ["cache", "seq"]])
        self.assertEqual(spec.eval_expr(sp["dims"][2], {"cache": 3,
                                                         "seq": 4}, sp), 7)

    def test_merge_keeps_defaults(self):
        d = [spec.parse_spec(x, "t", di.Usage) for x in ("a:int64:4",
                                                         "b:int64:4")]
        g = [spec.parse_spec("a:int64:8", "t", di.Usage)]
        self.assertEqual([x["text"] for x in spec.merge_specs(d, g)],
                         ["a:int64:8", "b:int64:4"])

    def test_bad_dtype(self):
        self.assertRaises(di.Usage, spec.parse_spec, "a:complex:4", "t",
                          di.Usage)


class Errors(unittest.TestCase):
    def test_first_line(self):
        e = NotImplementedError("Could not run 'aten::x'\n" + "dump\n" * 99)
        self.assertEqual(errors.first_line(e), "Could not run 'aten::x'")

    def test_one_line(self):
        self.assertEqual(errors.one_line("a\nb\x01"), "a\\nb\\x01")


class Writer(unittest.TestCase):
    def test_preplace_order(self):
        p = Program(None, "float32")
        w = p.new_raw("w", 10, 4, True, "weight")
        p.tensors[w]["module"] = True
        x = p.new_raw("x", 1025, 4, True, "input")
        c = p.new_raw("cache", 1, 4, True, "input")
        p.inst("write", [c], [x, c])
        self.assertEqual(writer.preplace(p), {w: 0, c: 4096, x: 8192})

    def test_short_names(self):
        n = short("x" * 100)
        self.assertEqual(len(n), 63)
        self.assertEqual(n[54], "~")


class TorchRules(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch
        cls.torch = torch

    def run_rules(self, f, capacity=None, experts=None):
        with registry.mode(self.torch, registry.Context(capacity, experts)):
            return f()

    def test_repeat_interleave_meta(self):
        t = self.torch
        x = t.empty(2, 3, 4, device="meta")
        y = self.run_rules(lambda: x.repeat_interleave(2, dim=1))
        self.assertEqual(list(y.shape), [2, 6, 4])
        z = self.run_rules(lambda: t.repeat_interleave(x, 3))
        self.assertEqual(list(z.shape), [72])

    def test_repeat_interleave_values(self):
        t = self.torch
        x = t.arange(6.).view(2, 3)
        y = self.run_rules(lambda: x.repeat_interleave(2, dim=0))
        self.assertTrue(t.equal(y, t.repeat_interleave(x, 2, dim=0)))

    def test_nonzero_refused(self):
        m = self.torch.empty(4, 2, dtype=self.torch.bool, device="meta")
        with self.assertRaises(registry.DataDependent) as cm:
            self.run_rules(lambda: self.torch.where(m))
        self.assertIn("--capacity-factor", str(cm.exception))

    def test_nonzero_capacity(self):
        t = self.torch
        m = t.empty(8, 2, dtype=t.bool, device="meta")
        idx, slot = self.run_rules(lambda: t.where(m), 1.25, 4)
        self.assertEqual(list(idx.shape), [5])	# ceil(1.25 x 16 / 4)
        registry.install_aten_meta(t)
        x = t.empty(8, 3, device="meta")
        rows = self.run_rules(lambda: x[m[:, 0]], 2.0, 4)
        self.assertEqual(list(rows.shape), [4, 3])

    def test_argwhere_masked_select_capacity(self):
        t = self.torch
        m = t.empty(6, 4, dtype=t.bool, device="meta")
        x = t.empty(6, 4, device="meta")
        self.assertEqual(list(self.run_rules(lambda: t.argwhere(m), 1.0,
                                             3).shape), [8, 2])
        self.assertEqual(list(self.run_rules(lambda: x.masked_select(m),
                                             1.0, 3).shape), [8])

    def test_masked_assign_keeps_shape(self):
        t = self.torch
        x, m = t.zeros(4, 3), t.tensor([True, False, True, False])

        def f():
            x[m] = 1.0
            return x
        self.assertEqual(self.run_rules(f).sum().item(), 6.0)

    def test_unique_refused(self):
        x = self.torch.empty(4, device="meta")
        self.assertRaises(registry.DataDependent, self.run_rules,
                          lambda: self.torch.unique(x))

    def test_gru_one_op(self):
        t = self.torch
        gru = t.nn.GRU(4, 8, 1, batch_first=True, device="meta")
        out, h = self.run_rules(lambda: gru(t.empty(3, 5, 4, device="meta")))
        self.assertEqual([list(out.shape), list(h.shape)], [[3, 5, 8],
                                                            [1, 3, 8]])

    def test_lstm_one_op(self):
        t = self.torch
        lstm = t.nn.LSTM(4, 8, 2, device="meta")
        x = t.empty(5, 3, 4, device="meta")
        out, (h, c) = self.run_rules(lambda: lstm(x))
        self.assertEqual([list(out.shape), list(h.shape), list(c.shape)],
                         [[5, 3, 8], [2, 3, 8], [2, 3, 8]])


class TorchModel(unittest.TestCase):
    def test_to_meta_ties_no_copy(self):
        import torch
        from dramplan_import.torch_model import to_meta, experts_of
        emb = torch.nn.Embedding(10, 4)
        head = torch.nn.Linear(4, 10, bias=False)
        head.weight = emb.weight
        net = torch.nn.Sequential(emb, head)
        m = to_meta(torch, net)
        self.assertIs(m[0].weight, m[1].weight)
        self.assertEqual(m[0].weight.device.type, "meta")
        self.assertEqual(net[0].weight.device.type, "cpu")
        self.assertIsNone(experts_of(net))
        net.experts = torch.nn.ModuleList([torch.nn.Identity()] * 3)
        self.assertEqual(experts_of(net), 3)


class OnnxRules(unittest.TestCase):
    class Eng:
        def __init__(self, shapes, values, attrs):
            self.s, self.v, self.a = shapes, values, attrs

        def shape(self, n):
            return self.s.get(n)

        def value(self, n):
            return self.v.get(n)

        def elem(self, n):
            return 1

        def attr(self, n, name, default=None):
            return self.a.get(name, default)

    class Node:
        def __init__(self, *inputs):
            self.input = list(inputs)

    def rule(self, op, shapes, values=None, **attrs):
        from dramplan_import import onnx_rules  # noqa: F401
        eng = self.Eng(shapes, values or {}, attrs)
        return registry.ONNX_RULES[op](eng, self.Node(*shapes))[0][1]

    def test_einsum(self):
        self.assertEqual(self.rule("Einsum", {"a": [8], "b": [4]},
                                   equation="i,j->ij"), [8, 4])
        self.assertEqual(self.rule("Einsum", {"a": [2, 3, 4], "b": [2, 4, 5]},
                                   equation="bij,bjk"), [3, 5])

    def test_expand_reshape(self):
        self.assertEqual(self.rule("Expand", {"x": [1, 1, 8], "s": [3]},
                                   {"s": [2, 4, 1]}), [2, 4, 8])
        self.assertEqual(self.rule("Reshape", {"x": [2, 3, 4], "s": [3]},
                                   {"s": [0, -1, 2]}), [2, 6, 2])

    def test_same_shape_and_fill(self):
        self.assertEqual(self.rule("Trilu", {"x": [4, 4]}), [4, 4])
        self.assertEqual(self.rule("CumSum", {"x": [2, 3], "a": []}), [2, 3])
        self.assertEqual(self.rule("ConstantOfShape", {"s": [2]},
                                   {"s": [3, 5]}), [3, 5])

    def test_range_where(self):
        self.assertEqual(self.rule("Range", {"a": [], "b": [], "c": []},
                                   {"a": 2, "b": 11, "c": 3}), [3])
        self.assertEqual(self.rule("Where", {"c": [8, 1], "x": [1], "y":
                                             [1, 5]}), [8, 5])


class Api(unittest.TestCase):
    def test_from_module(self):
        import torch.nn as nn
        m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
        doc = di.from_module(m, input_shapes=[[8]], batch=2)
        names = [t["name"] for t in doc["cores"][0]["tensors"]]
        self.assertEqual(names[:4], ["0.weight", "0.bias", "2.weight",
                                     "2.bias"])
        self.assertEqual(m[0].weight.device.type, "cpu")

    def test_options_checked(self):
        self.assertRaises(di.Usage, di.options, batch=0)
        self.assertRaises(di.Usage, di.options, frobnicate=1)


if __name__ == "__main__":
    r = unittest.main(argv=["units"], exit=False, verbosity=0).result
    sys.exit(0 if r.wasSuccessful() else 1)
