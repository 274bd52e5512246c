# SPDX-License-Identifier: GPL-2.0
"""The program of one core that a frontend records: tensors (name, element
count and size, usage) and instructions (the tensors each defines and
uses), in program order."""
import hashlib

PAGE = 4096
NAME_MAX = 63	# the device's tensor names (uapi XMEMSIM_NAME_LEN, NUL included)


def short(name):
    """A tensor name the device takes: one longer than NAME_MAX bytes keeps
    its head and gets a hash of the whole
    (allreduce.encoder.layers.encoder_layer_11.self_attention.out_proj.weight
    -> allreduce.encoder.layers.encoder_layer_11.self_atten~1b2c3d4e)."""
    if len(name.encode()) <= NAME_MAX:
        return name
    h = hashlib.sha1(name.encode()).hexdigest()[:8]
    head = name.encode()[:NAME_MAX - 9].decode("utf-8", "ignore")
    return head + "~" + h


def align(n):
    return (n + PAGE - 1) // PAGE * PAGE


class Program:
    def __init__(self, torch, dtype):
        self.torch = torch
        self.fsize = {"float32": 4, "float16": 2, "bfloat16": 2,
                      "float64": 8}[dtype]
        self.dtype = dtype
        self.tensors = []	# dicts: name, elems, elem_size, usage
        self.names = set()
        self.insts = []		# dicts: name, defs, uses (tensor ids)
        self.inames = set()
        self.weights = {}	# storage ptr -> tensor id (params, buffers)
        self.param_of = {}	# tensor id -> parameter name

    def unique(self, name, taken):
        n, k = name, 2
        while n in taken:
            n = short("%s#%d" % (name, k))
            k += 1
        taken.add(n)
        return n

    def new_tensor(self, name, t, usage="spill"):
        ptr, nbytes = storage_of(t)
        esize = self.fsize if t.is_floating_point() else t.element_size()
        elems = max(1, nbytes // t.element_size())
        self.tensors.append({"name": self.unique(short(name), self.names),
                             "elems": elems, "elem_size": esize,
                             "usage": usage})
        return len(self.tensors) - 1

    def new_raw(self, name, elems, elem_size, floating, usage="spill"):
        """A tensor known by its element count and type (ONNX)."""
        self.tensors.append({"name": self.unique(short(name), self.names),
                             "elems": max(1, elems),
                             "elem_size": self.fsize if floating
                             else elem_size, "usage": usage})
        return len(self.tensors) - 1

    def add_weights(self, module):
        seen = set()
        for kind, items in (("param", module.named_parameters()),
                            ("buffer", module.named_buffers())):
            for qn, t in items:
                if t is None or t.numel() == 0:
                    continue
                ptr, _ = storage_of(t)
                if ptr in seen:
                    continue	# tied weights: one tensor
                seen.add(ptr)
                tid = self.new_tensor(qn, t, "weight")
                self.tensors[tid]["module"] = True
                self.weights[ptr] = tid
                if kind == "param" and t.requires_grad:
                    self.param_of[tid] = qn

    def inst(self, name, defs, uses, collective=False):
        d = {"name": self.unique(name, self.inames),
             "defs": list(dict.fromkeys(defs)),
             "uses": list(dict.fromkeys(uses))}
        if collective:
            d["collective"] = True
        self.insts.append(d)
        return d


def storage_of(t):
    """(identity, bytes) of a tensor's storage.  The identity is the
    StorageImpl's address, which meta tensors (no data) have too."""
    if hasattr(t, "untyped_storage"):
        s = t.untyped_storage()
    else:
        s = t.storage()
        s = s.untyped() if hasattr(s, "untyped") else s
    key = getattr(s, "_cdata", None) or s.data_ptr()
    return key, s.nbytes()


def flat(torch, v):
    """The tensors in a value (tuples, lists, dicts), in order."""
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in flat(torch, x)]
    if isinstance(v, dict):
        return [t for x in v.values() for t in flat(torch, x)]
    return []
