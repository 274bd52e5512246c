# SPDX-License-Identifier: GPL-2.0
"""Inputs by name: NAME:DTYPE:SHAPE[:HIGH], the symbolic dimensions
(batch, seq, cache, max) and their values."""
from .errors import Fail

FLOAT_TYPES = ("float", "float32", "float16", "bfloat16", "float64")
INT_TYPES = ("int64", "int32", "int16", "int8", "uint8", "bool")
SYMBOLS = ("batch", "seq", "cache", "max")


def parse_expr(text, where, err):
    """A dimension: integers and symbols joined by +, as a list of terms."""
    terms = []
    for term in text.split("+"):
        term = term.strip()
        if term.isdigit():
            terms.append(int(term))
        elif term in SYMBOLS:
            terms.append(term)
        else:
            raise err("%s: \"%s\" is not an integer or one of %s"
                      % (where, term or text, ", ".join(SYMBOLS)))
    return terms


def parse_spec(text, where, err):
    """{name, dtype, dims (list of term lists), high (term list or None)}."""
    if not isinstance(text, str):
        raise err("%s: not a string NAME:DTYPE:SHAPE" % where)
    parts = text.split(":")
    if len(parts) not in (3, 4):
        raise err("%s: not NAME:DTYPE:SHAPE[:HIGH]" % where)
    name, dtype, shape = (x.strip() for x in parts[:3])
    if not name.isidentifier():
        raise err("%s: \"%s\" is not a parameter name" % (where, name))
    if dtype not in FLOAT_TYPES + INT_TYPES + ("int",):
        raise err("%s: unknown DTYPE \"%s\" (%s)" % (
            where, dtype, ", ".join(FLOAT_TYPES + INT_TYPES + ("int",))))
    dims = [parse_expr(d, where, err) for d in shape.split(",")] \
        if shape.strip() else []
    if dtype == "int" and len(dims) != 1:
        raise err("%s: an int input's SHAPE is its value, one expression"
                  % where)
    high = None
    if len(parts) == 4:
        if dtype not in INT_TYPES[:-1]:
            raise err("%s: HIGH is for integer tensors" % where)
        high = parse_expr(parts[3], where, err)
    return {"name": name, "dtype": dtype, "dims": dims, "high": high,
            "text": text}


def eval_expr(terms, values, spec):
    n = 0
    for t in terms:
        if isinstance(t, int):
            n += t
            continue
        v = values.get(t)
        if v is None:
            opt = {"seq": "--seq N", "cache": "--cache-len N (or --phase "
                   "prefill)", "max": "--max-len N", "batch": "--batch N"}[t]
            raise Fail("input '%s' (%s): dimension '%s' has no value: pass "
                       "%s" % (spec["name"], spec["text"], t, opt))
        n += v
    return n


def merge_specs(defaults, given):
    """The inputs: the defaults (input_spec), each one that --input names
    replaced by it, then the other --input ones."""
    if not defaults:
        return given or None
    by_name = {sp["name"]: sp for sp in given}
    out = [by_name.pop(sp["name"], sp) for sp in defaults]
    return out + [sp for sp in given if sp["name"] in by_name]


def value_hint(msg, specs):
    """A trace that failed on the values of an integer input: say which
    inputs and what to pass."""
    low = msg.lower()
    ints = [sp for sp in specs or [] if sp["dtype"] in INT_TYPES[:-1]]
    if not ints:
        return msg
    names = ", ".join(sp["name"] for sp in ints)
    if "tracing tensor" in low or "data-dependent" in low:
        return "%s (the trace reads the values of an integer input (%s): " \
            "give the one it needs as a Python integer, --input " \
            "NAME:int:VALUE)" % (msg, names)
    if any(w in low for w in ("index", "out of range", "out of bounds")):
        return "%s (integer inputs (%s) are drawn below %s: give their " \
            "range, --input NAME:DTYPE:SHAPE:HIGH)" % (
                msg, names, "the smallest nn.Embedding's num_embeddings")
    return msg
