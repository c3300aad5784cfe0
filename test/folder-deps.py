#!/usr/bin/env python3
"""Checks which source folder includes headers of which: the dependency rules of
doc/architecture.rst.

Every header is included flat, as "ns3/name.h" (or "name.h" beside it), so the folder a header
belongs to is found by its name: each .h under model/*/, helper/ (helper/report apart; other
subfolders of helper/ count as helper), examples/ and test/ is mapped to its folder, and a
header name held by two folders is an error. Each #include "..." of a .h or .cc file then
gives an edge from the file's folder to the header's folder; headers not in the map (ns-3's,
the system's) give none. The test fails when

* an edge is not in ALLOWED below (the table shown on doc/architecture.rst),
* a folder of model/ or helper/ holding sources is not in ALLOWED (a new folder must be given
  its place in the layers), or
* the folder graph has a cycle (folders that depend on each other, directly or through
  others). The edges of CYCLE_EDGES close a cycle today and are being removed: the cycle
  check leaves them out, and one that is no longer there fails, so that it is dropped from
  CYCLE_EDGES and ALLOWED here.

It works on folders, not files: new files in a folder add no rule.

usage: folder-deps.py SRC_DIR [--edges]   exit 0 clean, 1 listing the problems;
       --edges prints today's edges (folder -> folders) and checks nothing
"""
import os
import re
import sys

# folder -> the folders it may include headers from. Read as layers: model/common at the
# bottom, the designs above the shared offload device, helper above the models, the programs
# (examples, test) on top.
ALLOWED = {
    "model/common": set(),
    "model/host": {"model/common"},
    "model/fabric": {"model/common"},
    "model/stats": {
        "model/common",
        "model/fabric",  # ideal-fct.h reads a path as fabric-path-hop.h's PathHop
        "model/workload",  # fct-record.h -> flow-spec.h, ideal-fct.h -> wire-model.h
    },
    "model/workload": {
        "model/common",
        "model/host",
        "model/offload",  # tcp-socket-endpoint.cc reads the offload socket's and device's counters
    },
    "model/offload": {"model/common", "model/fabric", "model/host"},
    "model/rmt": {"model/common"},
    "model/presto": {
        "model/common",
        "model/offload",
        "model/rmt",
        "model/flextoe",  # presto-hybrid: Presto's pipeline with FlexTOE's SmartNIC cores
    },
    "model/flextoe": {"model/common", "model/offload"},
    "model/cora": {"model/common", "model/host", "model/offload"},
    "helper/report": {"model/common", "model/stats"},
    "helper": {
        "helper/report",
        "model/common",
        "model/fabric",
        "model/host",
        "model/offload",
        "model/presto",
        "model/stats",
        "model/workload",
    },
}
# programs on top: any folder of the module, never each other
MODULE = set(ALLOWED)
ALLOWED["examples"] = set(MODULE)
ALLOWED["test"] = set(MODULE)

# Edges that close a cycle and are being removed, left out of the cycle check until they are
# gone. None today: the model/stats <-> model/workload cycle (and the longer one through
# model/offload and model/fabric) was removed for issue 37 by moving WireModel, Percentile and
# PathHop to the folders that own them.
CYCLE_EDGES = []

SOURCE_TOPS = ["model", "helper", "examples", "test"]
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def folder_of(rel):
    """The folder a file (path relative to SRC_DIR) belongs to."""
    parts = rel.split("/")
    if parts[0] == "model":
        return "/".join(parts[:2])
    if parts[0] == "helper":
        # helper/report is a folder of the table; any other subfolder (helper/experiment, the
        # experiment's parts) belongs to helper
        return "helper/report" if len(parts) > 2 and parts[1] == "report" else "helper"
    return parts[0]  # examples, test (test/unit counts as test)


def sources(src):
    """Every .h and .cc under the source folders, relative to SRC_DIR."""
    out = []
    for top in SOURCE_TOPS:
        for d, dirs, files in os.walk(os.path.join(src, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".h", ".cc")):
                    out.append(os.path.relpath(os.path.join(d, f), src))
    return out


def edges(src, problems):
    """folder -> {folder: [the includes behind the edge]}, from the #include lines."""
    files = sources(src)
    owner = {}
    for rel in files:
        if rel.endswith(".h"):
            name = os.path.basename(rel)
            if name in owner and owner[name][0] != folder_of(rel):
                problems.append("header name %s is in two folders: %s and %s" % (name, owner[name][1], rel))
            owner.setdefault(name, (folder_of(rel), rel))
    graph = {}
    for rel in files:
        frm = folder_of(rel)
        graph.setdefault(frm, {})
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            if not inc.startswith("ns3/") and os.path.exists(os.path.join(src, os.path.dirname(rel), inc)):
                continue  # beside the file: the same folder
            name = os.path.basename(inc)
            if name not in owner:
                continue  # ns-3's or a system header
            to = owner[name][0]
            if to != frm:
                graph[frm].setdefault(to, []).append("%s -> %s" % (rel, inc))
    return graph


def cycles(graph):
    """The strongly connected components with more than one folder (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--edges"]
    if len(args) != 1 or not os.path.isdir(os.path.join(args[0], "model")):
        print("usage: folder-deps.py SRC_DIR [--edges]", file=sys.stderr)
        return 2
    problems = []
    graph = edges(args[0], problems)
    if "--edges" in sys.argv:
        for frm in sorted(graph):
            print("%-15s -> %s" % (frm, " ".join(sorted(graph[frm]))))
        return 0
    for frm in sorted(graph):
        if frm not in ALLOWED:
            problems.append("folder %s is not in the table: give it its allowed dependencies" % frm)
            continue
        for to in sorted(graph[frm]):
            if to not in ALLOWED[frm]:
                problems.append(
                    "%s must not depend on %s (doc/architecture.rst), but %s" % (frm, to, "; ".join(graph[frm][to]))
                )
    checked = {frm: {to: why for to, why in tos.items() if (frm, to) not in CYCLE_EDGES} for frm, tos in graph.items()}
    for comp in cycles(checked):
        problems.append("dependency cycle between folders: %s" % " <-> ".join(sorted(comp)))
    for frm, to in CYCLE_EDGES:
        if to not in graph.get(frm, {}):
            problems.append(
                "%s -> %s is gone: drop it from CYCLE_EDGES and from ALLOWED[%r]" % (frm, to, frm)
            )
    if problems:
        for p in problems:
            print("folder-deps: " + p)
        return 1
    count = sum(len(v) for v in graph.values())
    print("folder-deps: %d folders, %d folder edges, all allowed, no cycle but the %d edge(s) being removed" % (len(graph), count, len(CYCLE_EDGES)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
