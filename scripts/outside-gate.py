#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The repository reads nothing outside itself: every relative path with
"../" in a tracked file (docs aside) must stay inside the checkout, taken
from the file's folder or from the top (where the tests and scripts run),
and nothing names the spec folder that sits beside the checkout here
(its seeds or its bench). Prints one TAP line per offending place and a plan;
exits 1 when there is one.

    scripts/outside-gate.py [TOP]
"""
import os
import re
import subprocess
import sys

UP = re.compile(r"(?:\.\./)+[A-Za-z0-9_.$@{}()-][^\s\"'`;:,<>|)]*")
SPEC = re.compile(r"(?:^|[^A-Za-z0-9_])(?:\.\./)+shared\b|/work/shared\b|shared/(?:bench|seeds)/")


def tracked(top):
    out = subprocess.run(["git", "-C", top, "ls-files", "-z"], check=True,
                         capture_output=True).stdout
    return [f for f in out.decode().split("\0") if f]


def escapes(top, base, rel):
    """rel, taken from base (a folder inside top), leaves top."""
    path = os.path.normpath(os.path.join(top, base, rel))
    return os.path.relpath(path, top).startswith("..")


def findings(top):
    for f in tracked(top):
        # docs may name the spec; the data is data; this file names
        # what it looks for
        if f.endswith(".md") or f.startswith("tests/data/") or \
                f == "scripts/outside-gate.py":
            continue
        try:
            with open(os.path.join(top, f), encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for no, line in enumerate(lines, 1):
            if SPEC.search(line):
                yield f, no, "names the spec folder beside the checkout"
                continue
            for m in UP.finditer(line):
                rel = m.group(0)
                if escapes(top, os.path.dirname(f), rel) and escapes(top, "", rel):
                    yield f, no, "reads %s, outside the checkout" % rel
                    break


def main():
    top = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(os.path.dirname(__file__), ".."))
    bad = list(findings(top))
    for n, (f, no, what) in enumerate(bad, 1):
        print("not ok %d - %s:%d %s" % (n, f, no, what))
    if not bad:
        print("ok 1 - no tracked file reads outside the checkout")
    print("1..%d" % max(len(bad), 1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
