#!/usr/bin/env python3
"""Prints the functions of one binary that ran in callgrind profiles: the link's symbol order.

Usage: symbol-order-extract.py BINARY_PATH_SUFFIX CALLGRIND_OUT…
Profiles are read in the order given; within each, the most expensive functions come first, and a
function is listed once, where it first appears. Callgrind must have run with --demangle=no.
"""
import collections
import re
import sys

order, seen = [], set()
target = sys.argv[1]
for path in sys.argv[2:]:
    obs, names = {}, {}
    cur_ob = cur_fn = None
    cost = collections.Counter()
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r'^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$', line)
        if m:
            kind, i, name = m.groups()
            if name: (obs if kind.endswith("ob") else names)[i] = name
            if kind == "ob": cur_ob = obs.get(i)
            if kind == "fn": cur_fn = (names.get(i), cur_ob)
            continue
        if cur_fn and (line[:1].isdigit() or line[:1] in "+-"):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit(): cost[cur_fn] += int(parts[1])
    picked = [n for (n, ob), c in cost.most_common() if ob and ob.endswith(target) and n]
    for n in picked:
        n = re.sub(r"'\d+$", "", n)
        if n not in seen and not n.startswith("0x") and n != "(below main)":
            seen.add(n); order.append(n)
print("\n".join(order))
