#!/usr/bin/env python3
"""The include graph between the project's rooms, and a check that it has no cycle.

A room is a unit of code with one place in the dependency order (docs/design.md, "Module
map"), and each room is one top-level folder: the folder of a file is its room.

Every `#include "folder/..."` of a product source (tests, benchmarks and fuzzers are left
out: they may include anything) is an arrow from the including file's room to the included
file's room. The check fails when the arrows between rooms form a cycle, naming one.

  scripts/include_graph.py            # the arrows between rooms, with counts; exit 1 on a cycle
  scripts/include_graph.py --check    # only the check: silent and exit 0 when acyclic
  scripts/include_graph.py --dot      # the room graph in Graphviz dot
"""
import argparse
import os
import re
import sys

# Product folders, lowest first (the order only sorts the output).
FOLDERS = ["common", "tpe", "selection", "io", "strategies", "config", "gpu", "engine", "scaleout", "study", "storage", "reports", "apps"]

SOURCE_SUFFIXES = (".hpp", ".cpp", ".cuh", ".cu", ".h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def room_of(path):
    """The room of a path relative to the repository root, or None outside the product."""
    top = path.split("/", 1)[0]
    return top if top in FOLDERS else None


def collect(root):
    """{(from_room, to_room): [(file, included), ...]} over every product source."""
    edges = {}
    for folder in FOLDERS:
        base = os.path.join(root, folder)
        for dirpath, _, files in os.walk(base):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                src = room_of(rel)
                with open(full, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for included in INCLUDE.findall(text):
                    dst = room_of(included)
                    if dst is None or dst == src:
                        continue
                    edges.setdefault((src, dst), []).append((rel, included))
    return edges


def find_cycle(edges):
    """One cycle of rooms as a list [a, b, ..., a], or None."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    state = {n: 0 for n in graph}  # 0 unseen, 1 on the stack, 2 done
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state[m] == 1:
                return stack[stack.index(m):] + [m]
            if state[m] == 0:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if state[n] == 0:
            found = visit(n)
            if found:
                return found
    return None


def order_key(room):
    rooms = ["common", "tpe", "selection", "io", "strategies", "config", "engine", "gpu", "scaleout", "study",
             "storage", "reports", "apps"]
    return rooms.index(room) if room in rooms else len(rooms)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--check", action="store_true", help="print nothing unless there is a cycle")
    parser.add_argument("--dot", action="store_true", help="print the room graph in Graphviz dot")
    args = parser.parse_args()
    edges = collect(os.path.abspath(args.root))
    cycle = find_cycle(edges)
    if args.dot:
        print("digraph rooms {")
        for (a, b), uses in sorted(edges.items(), key=lambda e: (order_key(e[0][0]), order_key(e[0][1]))):
            print(f'  "{a}" -> "{b}" [label="{len(uses)}"];')
        print("}")
    elif not args.check:
        for room in sorted({a for a, _ in edges} | {b for _, b in edges}, key=order_key):
            targets = sorted(((b, len(u)) for (a, b), u in edges.items() if a == room), key=lambda t: order_key(t[0]))
            print(f"{room:10} -> " + (", ".join(f"{b} ({n})" for b, n in targets) or "-"))
    if cycle:
        print("include cycle between rooms: " + " -> ".join(cycle), file=sys.stderr)
        for a, b in zip(cycle, cycle[1:]):
            rel, included = edges[(a, b)][0]
            print(f"  {a} -> {b}: {rel} includes \"{included}\" ({len(edges[(a, b)])} such includes)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
