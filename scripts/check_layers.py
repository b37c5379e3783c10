#!/usr/bin/env python3
"""Checks the layering of ../shared/DESIGN.md against the includes of the tree; exits 1 naming
every include that runs against it.

    base  ->  memory, format, codec  ->  ipc, io, partition  ->  write  ->  row, read  ->  capi

A module may include its own headers and those of lower layers only: never a module of its own
layer (read never depends on write's peers, row and read not on each other), never a higher one,
and nothing in src/ or include/ includes the tools. Within the tree, concepts (a .h/.cc pair) must
not depend on each other in a cycle.

    python3 scripts/check_layers.py      (make lint runs it)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
LAYERS = {
    "base": 0,
    "memory": 1, "format": 1, "codec": 1,
    "ipc": 2, "io": 2, "partition": 2,
    "write": 3,
    "row": 4, "read": 4,
    "capi": 5,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path):
    """The module a file of src/ or include/sluice/ belongs to, or None."""
    parts = path.relative_to(ROOT).parts
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ("include", "sluice") and len(parts) > 3:
        return parts[2]
    return None


def target_of(include, source):
    """(module, concept) an include names, or None for system and generated headers."""
    name = include
    if name.startswith("sluice/"):
        name = name[len("sluice/"):]
    parts = name.split("/")
    if len(parts) == 2 and parts[0] in LAYERS:
        return parts[0], pathlib.Path(parts[1]).stem.replace("_internal", "")
    if len(parts) == 1:  # a header beside the source
        local = source.parent / name
        if local.exists():
            return module_of(local), local.stem.replace("_internal", "")
    return None


def main():
    problems = []
    tool_headers = {p.name for p in (ROOT / "tools").glob("*.h")}
    concept_edges = {}
    files = sorted(list((ROOT / "src").rglob("*.h")) + list((ROOT / "src").rglob("*.cc")) +
                   list((ROOT / "include" / "sluice").rglob("*.h")))
    for path in files:
        module = module_of(path)
        if module not in LAYERS:
            continue
        concept = (module, path.stem.replace("_internal", ""))
        for include in INCLUDE.findall(path.read_text()):
            relative = path.relative_to(ROOT)
            if "/" not in include and include in tool_headers and not (path.parent / include).exists():
                problems.append(f"{relative}: includes the tool's {include}")
                continue
            target = target_of(include, path)
            if target is None or target[0] is None:
                continue
            target_module, target_concept = target
            if target_module != module:
                if LAYERS[target_module] >= LAYERS[module]:
                    problems.append(
                        f"{relative}: {module} (layer {LAYERS[module]}) includes {include} of "
                        f"{target_module} (layer {LAYERS[target_module]})")
            if (target_module, target_concept) != concept:
                concept_edges.setdefault(concept, set()).add((target_module, target_concept))
    # Cycles between concepts (a .h/.cc pair and its _internal header are one concept).
    state = {}
    stack = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for successor in sorted(concept_edges.get(node, ())):
            if state.get(successor) == "open":
                cycle = stack[stack.index(successor):] + [successor]
                problems.append("include cycle: " + " -> ".join(f"{m}/{c}" for m, c in cycle))
            elif successor not in state:
                visit(successor)
        stack.pop()
        state[node] = "done"

    for node in sorted(concept_edges):
        if node not in state:
            visit(node)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_layers: {len(problems)} problem(s) against DESIGN.md's layers")
        return 1
    print(f"check_layers: {len(files)} files follow the layers, no include cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
