# SPDX-License-Identifier: GPL-2.0
"""The model writer: a recorded Program as a dramplan model (JSON, one
tensor and one instruction a line), written by dramplan's rule for its
outputs (docs/dramplan.md, "Where outputs go")."""
import json
import os
import stat
import sys
import tempfile

from .errors import Fail
from .program import align, short


def emit(prog, name, cores, grads, sgd):
    """The dramplan model: `cores` copies of the program; with cores > 1,
    each gradient is staged into a shared tensor (owned by core 0, linked
    on the others) and one collective all-reduces them.  grads is None
    for inference, a list of (parameter, gradient) tensor ids for
    training."""
    addrs = preplace(prog)
    training = grads is not None
    grads = grads or []
    # a tensor-parallel network's all-reduced tensors: each core's own
    # (in its CC region), all-reduced by a collective that names the
    # cores; in float64, which no engine reduces, one buffer shared by
    # the cores (owned by core 0, linked on the others) as before
    coll = set(tid for tid, t in enumerate(prog.tensors)
               if t.get("collective")) if cores > 1 else set()
    ctype = COLL_TYPES.get(prog.dtype)
    doc_cores = []
    for c in range(cores):
        tensors = core_tensors(prog, c, cores, addrs,
                               set() if ctype else coll, grads)
        insts = core_insts(prog, cores, coll, ctype)
        if cores > 1 and grads:
            src = all_reduce_grads(prog, c, grads, tensors, insts)
        else:
            src = {g: prog.tensors[g]["name"] for p, g in grads}
        if sgd:
            for p, g in grads:
                w = prog.tensors[p]["name"]
                insts.append({"name": "sgd." + prog.param_of[p],
                              "defs": [w], "uses": [w, src[g]]})
        doc_cores.append({"core": c,
                          "function": "%s_%s%s" % (
                              ident(name), "train_step" if training
                              else "forward",
                              "_rank%d" % c if cores > 1 else ""),
                          "tensors": tensors,
                          "blocks": [{"name": "entry", "succ": [],
                                      "insts": insts}]})
    return {"format": "dramplan-model/1", "model": name, "cores": doc_cores}


def preplace(prog):
    """Addresses of the inputs and weights, packed from 0 in 4 KiB pages:
    the module's parameters and buffers, then the inputs the step writes
    in place (a KV cache: state kept across steps), then the trace's
    constants, then the other inputs.  The state's addresses thus depend
    on the weights and the state alone, not on the step's length."""
    state = state_inputs(prog)

    def rank(tid):
        t = prog.tensors[tid]
        if t["usage"] == "weight":
            return 0 if t.get("module") else 2
        return 1 if tid in state else 3
    pre = [tid for tid, t in enumerate(prog.tensors)
           if t["usage"] in ("input", "weight")]
    addr, addrs = 0, {}
    for tid in sorted(pre, key=lambda x: (rank(x), x)):
        t = prog.tensors[tid]
        addrs[tid] = addr
        addr += align(t["elems"] * t["elem_size"])
    return addrs


def core_tensors(prog, c, cores, addrs, coll, grads):
    """Core c's tensors: one core's gradients are outputs (they live to
    the end of the step, as .grad does)."""
    gnames = set(g for p, g in grads)
    tensors = []
    for tid, t in enumerate(prog.tensors):
        d = {"name": t["name"], "elems": t["elems"],
             "elem_size": t["elem_size"]}
        usage = t["usage"]
        if cores == 1 and tid in gnames:
            usage = "output"
        if usage != "spill":
            d["usage"] = usage
        if tid in addrs:
            d["address"] = addrs[tid]
        if tid in coll:
            d["shared"] = True
            if c > 0:
                d["remote"] = {"core": 0, "name": t["name"]}
        tensors.append(d)
    return tensors


# the model's collective types, by the importer's --dtype
COLL_TYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}


def core_insts(prog, cores, coll, ctype):
    """The instructions; on several cores an instruction that defines an
    all-reduced tensor (tensor parallel) stages this core's partial sum
    into the all-reduced tensor, then sums it over the cores in place: an
    all_reduce of type ctype over every core (None: the old form, a
    collective flag on a shared tensor)."""
    insts = []
    taken = set(i["name"] for i in prog.insts)
    for i in prog.insts:
        d = {"name": i["name"],
             "defs": [prog.tensors[x]["name"] for x in i["defs"]],
             "uses": [prog.tensors[x]["name"] for x in i["uses"]]}
        if cores > 1 and any(x in coll for x in i["defs"]):
            d["name"] = prog.unique("stage." + i["name"], taken)
            insts.append(d)
            d = {"name": i["name"], "defs": d["defs"],
                 "uses": d["defs"], "collective": True}
            if ctype:
                d["collective"] = {"kind": "all_reduce", "reduction": "sum",
                                   "type": ctype,
                                   "cores": list(range(cores))}
        insts.append(d)
    return insts


def all_reduce_grads(prog, c, grads, tensors, insts):
    """Data parallel: each gradient staged into a shared tensor
    allreduce.<param> (owned by core 0, linked on the others), then one
    collective over them all.  Returns gradient -> the name to read."""
    shared = []
    for p, g in grads:
        gt = prog.tensors[g]
        sname = short("allreduce." + prog.param_of[p])
        d = {"name": sname, "elems": gt["elems"],
             "elem_size": gt["elem_size"], "shared": True}
        if c > 0:
            d["remote"] = {"core": 0, "name": sname}
        tensors.append(d)
        shared.append(sname)
        insts.append({"name": "stage." + prog.param_of[p],
                      "defs": [sname], "uses": [gt["name"]]})
    insts.append({"name": "all_reduce", "defs": shared,
                  "uses": shared, "collective": True})
    return {g: short("allreduce." + prog.param_of[p]) for p, g in grads}


def state_inputs(prog):
    """Inputs that an instruction writes (in place): a KV cache."""
    return set(x for i in prog.insts for x in i["defs"]
               if prog.tensors[x]["usage"] == "input")


def ident(s):
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in s)


def dump(doc):
    """One tensor, one instruction a line: readable and diffable."""
    out = ['{\n  "format": %s,\n  "model": %s,\n  "cores": [\n'
           % (json.dumps(doc["format"]), json.dumps(doc["model"]))]
    for ci, c in enumerate(doc["cores"]):
        out.append('    {\n      "core": %d,\n      "function": %s,\n'
                   '      "tensors": [\n' % (c["core"],
                                             json.dumps(c["function"])))
        out.append(",\n".join("        " + json.dumps(t)
                              for t in c["tensors"]))
        out.append('\n      ],\n      "blocks": [\n')
        for bi, b in enumerate(c["blocks"]):
            out.append('        {"name": %s, "succ": %s, "insts": [\n'
                       % (json.dumps(b["name"]), json.dumps(b["succ"])))
            out.append(",\n".join("          " + json.dumps(i)
                                  for i in b["insts"]))
            out.append("\n        ]}%s\n" % ("," if bi + 1 < len(c["blocks"])
                                           else ""))
        out.append("      ]\n    }%s\n" % ("," if ci + 1 < len(doc["cores"])
                                          else ""))
    out.append("  ]\n}\n")
    return "".join(out)


def magic_prefix(p):
    return p.startswith("/dev/") or p.startswith("/proc/")


def magic_link(path):
    cur = path
    for _ in range(40):
        if magic_prefix(cur):
            return True
        try:
            st = os.lstat(cur)
        except OSError:
            return False
        if not stat.S_ISLNK(st.st_mode):
            return False
        lnk = os.readlink(cur)
        cur = lnk if lnk.startswith("/") else \
            os.path.join(os.path.dirname(cur), lnk)
    return False


def write_output(path, text):
    """Write text to path: standard output for -, else dramplan's rule."""
    data = text.encode()
    if path in ("-", "/dev/stdout", "/dev/stderr"):
        f = sys.stdout if path != "/dev/stderr" else sys.stderr
        try:
            f.buffer.write(data)
            f.flush()
        except OSError as e:
            raise Fail("%s: write error: %s" % (path, e.strerror))
        return
    direct, create, target, keep = output_kind(path)
    if direct:
        write_direct(path, data, create)
    else:
        replace_file(path, target, keep, data)


def output_kind(path):
    """(direct, create, target, keep): write in place (a device, a FIFO,
    anything in /dev or /proc; create: a dangling link), or through a
    temporary file renamed onto target, keeping the stat `keep`'s mode."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False, False, path, None
    except OSError as e:
        raise Fail("%s: %s" % (path, e.strerror))
    if stat.S_ISLNK(st.st_mode) and magic_link(path):
        return True, not os.path.exists(path), path, None
    if stat.S_ISLNK(st.st_mode):
        try:
            tst = os.stat(path)
        except OSError:
            return True, True, path, None	# dangling: write through
        if stat.S_ISDIR(tst.st_mode):
            raise Fail("%s: is a directory" % path)
        if stat.S_ISREG(tst.st_mode):
            return False, False, os.path.realpath(path), tst
        return True, False, path, None
    if stat.S_ISDIR(st.st_mode):
        raise Fail("%s: is a directory" % path)
    if stat.S_ISREG(st.st_mode) and not magic_prefix(path):
        return False, False, path, st
    return True, False, path, None	# device, FIFO, socket, /dev, /proc


def write_direct(path, data, create):
    flags = os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC
    flags |= (os.O_CREAT | os.O_TRUNC) if create else os.O_APPEND
    try:
        fd = os.open(path, flags, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
    except OSError as e:
        raise Fail("%s: %s" % (path, e.strerror))


def replace_file(path, target, keep, data):
    """A temporary file in target's directory, renamed onto it: an
    existing file's mode (and, as root, owner) kept, else 0666 & ~umask."""
    d = os.path.dirname(target) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(target) + ".tmp.",
                                   dir=d)
    except OSError as e:
        raise Fail("%s: cannot create: %s" % (path, e.strerror))
    try:
        if keep is not None:
            if os.geteuid() == 0 and (keep.st_uid, keep.st_gid) != (0, 0):
                os.fchown(fd, keep.st_uid, keep.st_gid)
            os.fchmod(fd, stat.S_IMODE(keep.st_mode))
        else:
            um = os.umask(0)
            os.umask(um)
            os.fchmod(fd, 0o666 & ~um)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.rename(tmp, target)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise Fail("%s: %s" % (path, e.strerror))
