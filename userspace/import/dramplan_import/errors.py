# SPDX-License-Identifier: GPL-2.0
"""Errors: a Fail (exit 1) or a Usage error (exit 2), each told in one
line; --debug shows the Python traceback behind it."""
import os
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
MSG_MAX = 400	# characters of an exception's message in a one-line error


class Fail(Exception):
    """An error of the input or the network: exit 1."""


class Usage(Exception):
    """A usage error: exit 2."""


def one_line(s):
    """Messages are one line: control characters escaped."""
    s = str(s)
    out = []
    for ch in s:
        if ch == "\n":
            out.append("\\n")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out).strip()


def frame_of(e):
    """'FILE:LINE in FUNCTION' of the innermost frame of e's traceback
    outside torch and the importer (the model's code), or ''."""
    frame = None
    for fr in traceback.extract_tb(e.__traceback__):
        if "/torch/" not in fr.filename and "/functorch/" not in fr.filename \
                and not fr.filename.startswith(HERE) \
                and not fr.filename.startswith("<"):
            frame = fr
    if frame is None:
        return ""
    return "%s:%d in %s" % (frame.filename, frame.lineno, frame.name)


def where_failed(e):
    """The exception and the innermost frame outside torch itself."""
    msg = "%s: %s" % (type(e).__name__, first_line(e)) if str(e) \
        else type(e).__name__
    where = frame_of(e)
    return "%s: %s" % (where, msg) if where else msg


def first_line(e):
    """An exception's message without PyTorch's dispatcher dump: its first
    line, at most MSG_MAX characters."""
    text = str(e).strip().split("\n")[0]
    if len(text) > MSG_MAX:
        text = text[:MSG_MAX - 3] + "..."
    return text
