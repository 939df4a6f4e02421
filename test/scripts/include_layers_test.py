#!/usr/bin/env python3
"""No include loop between umsync's folders.

Each folder under include/umsync/ (capture/, memory/, graph/, ...) is one node, and so is each
header at the top (stream.hpp, launch.hpp, ...); an edge A -> B means a header in A includes a
header in B. The graph must have no cycle: a folder then stays a layer that can be read, tested
and changed without the ones above it. Prints the cycle when there is one and exits 1.
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*<umsync/([^>]+)>', re.MULTILINE)


def node_of(relative: str) -> str:
    parts = relative.split('/')
    return parts[0] + '/' if len(parts) > 1 else parts[0]


def include_graph(root: pathlib.Path) -> dict:
    graph = {}
    for header in sorted(root.rglob('*.hpp')) + sorted(root.rglob('*.cuh')):
        source = node_of(header.relative_to(root).as_posix())
        targets = graph.setdefault(source, {})
        for included in INCLUDE.findall(header.read_text()):
            target = node_of(included)
            if target != source:
                targets.setdefault(target, f'{header.relative_to(root).as_posix()} includes <umsync/{included}>')
    return graph


def find_cycle(graph: dict):
    state = {}  # node -> 'open' while on the path, 'done' afterwards
    path = []

    def visit(node):
        state[node] = 'open'
        path.append(node)
        for target in sorted(graph.get(node, {})):
            if state.get(target) == 'open':
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 'done'
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2] / 'include/umsync')
    graph = include_graph(root)
    if not graph:
        print(f'no headers under {root}')
        return 1
    cycle = find_cycle(graph)
    if cycle:
        print('include loop between umsync folders: ' + ' -> '.join(cycle))
        for a, b in zip(cycle, cycle[1:]):
            print(f'  {graph[a][b]}')
        return 1
    print(f'{len(graph)} folders and top-level headers, no include loop')
    return 0


if __name__ == '__main__':
    sys.exit(main())
