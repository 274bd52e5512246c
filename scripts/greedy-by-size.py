#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""greedy-by-size: TFLite's arena strategy on a dramplan plan, as a baseline.

    scripts/greedy-by-size.py PLAN.json

For each core of the plan, the tensors dramplan placed itself (region
"general": not pre-placed, not shared, not collective) are placed again by
greedy by size, the strategy of TFLite's arena planner and of its GPU
delegate's GreedyBySize: tensors in decreasing size (ties: plan order),
each in the smallest gap between the byte ranges of the tensors already
placed that are live at the same time (best fit), else just above the
highest of them.  Times are the plan's intervals (closed, as dramplan's
liveness gives them), sizes the plan's 4 KiB-rounded sizes.

Prints one line per core: `core N tensors T lower_bound L planned P
greedy G` in bytes, where L is the most bytes live at one time of those
tensors, P the plan's own peak for them (highest end above the plan's
private_base; the plan's "peak" also counts the CC and shared regions
below it) and G the greedy peak (highest end, from 0).  The placement
is checked (no two tensors live at the same time share a byte) before it
is printed; exit 1 if not.  A benchmark tool (scripts/bench-models.sh):
not part of the library.
"""
import json
import sys


def overlaps(a, b):
    for lo, hi in a:
        for lo2, hi2 in b:
            if lo <= hi2 and lo2 <= hi:
                return True
    return False


def greedy(items):
    """items: (size, index, intervals); returns offsets by index."""
    order = sorted(items, key=lambda it: (-it[0], it[1]))
    placed = []		# (lo, hi, intervals, offset, end)
    off = {}
    for size, idx, ivs in order:
        lo = min(i[0] for i in ivs)
        hi = max(i[1] for i in ivs)
        live = sorted((p[3], p[4]) for p in placed
                      if p[0] <= hi and lo <= p[1] and
                      (len(ivs) == 1 and len(p[2]) == 1 or
                       overlaps(ivs, p[2])))
        best, best_gap, prev = None, None, 0
        for o, e in live:
            gap = o - prev
            if gap >= size and (best_gap is None or gap < best_gap):
                best, best_gap = prev, gap
            prev = max(prev, e)
        if best is None:
            best = prev
        off[idx] = best
        placed.append((lo, hi, ivs, best, best + size))
    return off


def lower_bound(items):
    ev = []
    for size, _, ivs in items:
        for lo, hi in ivs:
            ev.append((lo, 0, size))
            ev.append((hi + 1, -1, size))	# closed: live through hi
    ev.sort()
    cur = best = 0
    for _, kind, size in ev:
        cur += size if kind == 0 else -size
        best = max(best, cur)
    return best


def check(items, off):
    ev = sorted(items, key=lambda it: off[it[1]])
    for i, (s, idx, ivs) in enumerate(ev):
        for s2, idx2, ivs2 in ev[i + 1:]:
            if off[idx2] >= off[idx] + s:
                break
            if overlaps(ivs, ivs2):
                return False
    return True


def main(argv):
    if len(argv) != 1:
        print("usage: greedy-by-size.py PLAN.json", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        plan = json.load(f)
    rc = 0
    for c in plan["cores"]:
        items = [(t["size"], i, [tuple(x) for x in t["intervals"]])
                 for i, t in enumerate(c["tensors"])
                 if t["region"] == "general" and t["intervals"]]
        off = greedy(items)
        peak = max((off[i] + s for s, i, _ in items), default=0)
        if not check(items, off):
            print("greedy-by-size: core %d: overlapping placement"
                  % c["core"], file=sys.stderr)
            rc = 1
        planned = max((t["address"] + t["size"] - plan["private_base"]
                       for t in c["tensors"] if t["region"] == "general"
                       and t["intervals"]), default=0)
        print("core %d tensors %d lower_bound %d planned %d greedy %d"
              % (c["core"], len(items), lower_bound(items), planned, peak))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
