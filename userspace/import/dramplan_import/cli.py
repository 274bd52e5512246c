# SPDX-License-Identifier: GPL-2.0
"""dramplan-import - a PyTorch network or an ONNX graph as a dramplan
model (JSON).

    dramplan-import [options] NAME|FILE.py[:ATTR]|FILE.onnx [-o MODEL.json]

NAME is a torchvision model (resnet18, vit_b_16, ...); FILE.py is a Python
file that exports an nn.Module (see --help); FILE.onnx an ONNX graph.  The
network runs once on meta tensors (shapes, no arithmetic): no weights or
data sets are needed, and the CPU runs it only under --allow-cpu.

Exit status: 0 success, 1 an error (one line on stderr, nothing written),
2 a usage error.  docs/dramplan-import.md says how each graph value becomes
a tensor; the Python API (api.py) does what the command line does."""
import argparse
import os
import sys

from .errors import Fail, Usage, one_line, where_failed
from .spec import parse_spec
from . import api, registry

PROG = "dramplan-import"


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Usage(message)


def add_io(p):
    p.add_argument("model", metavar="NAME|FILE.py[:ATTR]|FILE.onnx",
                   help="a torchvision model name (see --list), a Python "
                   "file, or an ONNX file; ATTR (default: `model`, then "
                   "`make_model()`, then the one nn.Module class the file "
                   "defines) is an nn.Module, an nn.Module class or a "
                   "function returning one")
    p.add_argument("-o", "--output", default="-", metavar="FILE",
                   help="the model JSON (default -, standard output); "
                   "written like dramplan's outputs")
    p.add_argument("--input-shape", action="append", metavar="C,H,W",
                   help="one input's shape without the batch dimension "
                   "(repeat for several inputs; default: the model's usual "
                   "image, 3,224,224 or 3,299,299)")
    p.add_argument("--input", action="append", metavar="NAME:DTYPE:SHAPE",
                   dest="inputs",
                   help="one input of forward(), by its parameter name: "
                   "DTYPE float, float32, float16, bfloat16, float64, "
                   "int64, int32, int16, int8, uint8, bool or int (a Python "
                   "integer, SHAPE its value); SHAPE the whole shape, dims "
                   "integers or batch, seq, cache, max and their sums "
                   "(cache+seq); an optional :HIGH draws integers in "
                   "[0, HIGH) (repeat for several inputs; the others keep "
                   "the file's input_spec)")
    p.add_argument("--batch", type=int, default=1, metavar="N",
                   help="batch size (default 1)")


def add_step(p):
    p.add_argument("--phase", choices=["prefill", "decode"],
                   help="an inference step of a decoder with a KV cache: "
                   "prefill (--seq tokens into an empty cache) or decode "
                   "(one token against --cache-len cached ones)")
    p.add_argument("--seq", type=int, metavar="N",
                   help="the `seq` dimension: tokens in the step (decode: "
                   "default 1)")
    p.add_argument("--cache-len", type=int, metavar="N",
                   help="the `cache` dimension: tokens already in the KV "
                   "cache (decode; prefill: 0)")
    p.add_argument("--max-len", type=int, metavar="N",
                   help="the `max` dimension: the KV cache's capacity "
                   "(default cache + seq); keep it fixed across steps so "
                   "the cache keeps its addresses")
    p.add_argument("--trace", default="auto", choices=["auto", "fx", "aten"],
                   help="inference graph: torch.fx modules (fx), aten "
                   "operations from make_fx (aten), or auto (default): aten "
                   "when a torch.nn module hides operations (attention, "
                   "transformer layers, RNNs) or inputs are given by name")
    p.add_argument("--dtype", default="float32",
                   choices=["float32", "float16", "bfloat16", "float64"],
                   help="element type of floating tensors in the model "
                   "(default float32; the network runs in float32, sizes "
                   "use this type)")
    p.add_argument("--train", action="store_true",
                   help="one training step (forward, loss, backward) "
                   "instead of inference")
    p.add_argument("--cores", type=int, default=1, metavar="N",
                   help="(--train) data parallel on N cores: gradients "
                   "all-reduced through tensors shared across cores; "
                   "(--phase) tensor parallel on N cores where the file's "
                   "factory takes `ranks`, else N serving replicas")
    p.add_argument("--sgd", action="store_true",
                   help="(--train) end the step with an SGD update of each "
                   "parameter from its gradient")
    p.add_argument("--name", metavar="NAME",
                   help="the model's name in the JSON (default: derived)")


def add_run(p):
    p.add_argument("--seed", type=int, default=0,
                   help="random seed of the weights and input (default 0)")
    p.add_argument("--device", default="auto",
                   choices=["auto", "meta", "cpu"],
                   help="where the network runs: meta tensors (auto, meta; "
                   "the default: shapes only, no arithmetic, no copy of "
                   "the weights) or the CPU (the weights in RAM, every op "
                   "computed)")
    p.add_argument("--allow-cpu", action="store_true",
                   help="run on the CPU when an op has no meta kernel and "
                   "no rule of the importer (minutes for a large model; "
                   "never for data-dependent shapes)")
    p.add_argument("--capacity-factor", type=float, metavar="F",
                   help="import data-dependent row counts (nonzero, "
                   "where(cond), boolean masks: mixture-of-experts "
                   "routing) assuming each of the experts takes at most F "
                   "x its even share of the rows (GShard, Switch); "
                   "without it they are refused")
    p.add_argument("--experts", type=int, metavar="N",
                   help="(--capacity-factor) the number of experts "
                   "(default: the model's num_experts, or the length of an "
                   "`experts` ModuleList)")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="torch CPU threads (default 1)")
    p.add_argument("--debug", action="store_true",
                   help="on an error, also print the Python traceback")
    p.add_argument("--list", action="store_true",
                   help="list the torchvision model names and exit")
    p.add_argument("-h", "--help", action="help",
                   help="show this help and exit")
    p.add_argument("-V", "--version", action="store_true",
                   help="print the version and exit")


def parse_args(argv):
    p = Parser(prog=PROG, add_help=False,
               description="Write a dramplan model (JSON) for a PyTorch "
               "network (a torchvision model NAME or FILE.py[:ATTR]) or an "
               "ONNX graph (FILE.onnx).")
    add_io(p)
    add_step(p)
    add_run(p)
    if "-V" in argv or "--version" in argv:
        return argparse.Namespace(version=True)
    if "--list" in argv:
        return argparse.Namespace(version=False, list=True,
                                  debug="--debug" in argv)
    a = p.parse_args(argv)
    a.specs = [parse_spec(x, "--input %s" % x, Usage)
               for x in a.inputs or []]
    a.shapes = [input_shape(s) for s in a.input_shape or []]
    api.check(a)
    return a


def input_shape(s):
    try:
        dims = [int(x) for x in s.split(",") if x.strip() != ""]
    except ValueError:
        raise Usage("--input-shape: \"%s\" is not a list of integers "
                    "like 3,224,224" % s)
    if any(d < 1 for d in dims):
        raise Usage("--input-shape: \"%s\": dimensions must be "
                    "positive" % s)
    return dims


def version():
    from . import _version
    v = _version.VERSION	# the build's copy has it filled in
    if v.startswith("@"):	# installed by pip: its metadata
        try:
            from importlib.metadata import version as dist_version
            v = dist_version("dramplan-import")
        except Exception:
            pass
    if v.startswith("@"):	# run from the source tree
        f = os.path.join(os.path.dirname(os.path.realpath(__file__)),
                         "..", "..", "..", "VERSION")
        try:
            with open(f) as fh:
                v = fh.read().strip()
        except OSError:
            pass
    return v


def run(a):
    if getattr(a, "list", False):
        from .torch_model import load_torch, torchvision_models
        load_torch()
        print("\n".join(torchvision_models()[1]))
        return 0
    api.write(api.import_any(a), a.output)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    debug = "--debug" in argv
    try:
        a = parse_args(argv)
        if a.version:
            print("%s %s" % (PROG, version()))
            return 0
        return run(a)
    except Usage as e:
        print("%s: %s (see %s --help)" % (PROG, one_line(e), PROG),
              file=sys.stderr)
        return 2
    except Fail as e:
        if debug:
            registry.debug_print(e)
        # torch.fx appends "While executing ..." lines to an exception
        # raised in a node: the first line is the message
        print("%s: %s" % (PROG, one_line(str(e).split("\n")[0])),
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        # a bug of the importer: one line too, the traceback with --debug
        if debug:
            registry.debug_print(e)
        print("%s: internal error: %s (--debug shows the traceback)"
              % (PROG, one_line(where_failed(e))), file=sys.stderr)
        return 1
