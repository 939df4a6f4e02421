#!/usr/bin/env python3
"""No include loop between umsync's folders, and internals only in detail/ folders.

Each folder under include/umsync/ (capture/, memory/, graph/, ...) is one node, and so is each
header at the top (stream.hpp, launch.hpp, ...); an edge A -> B means a header in A includes a
header in B. The graph must have no cycle: a folder then stays a layer that can be read, tested
and changed without the ones above it. Prints the cycle when there is one and exits 1.

Internal headers live in detail/ folders and nowhere else, so:
- a header under a detail/ folder declares its names in a detail namespace;
- a header outside them declares a name outside every detail namespace (or only includes
  others: an umbrella or a forwarding header), so no internal header sits in a public folder;
- the users' code of the repository (examples/, bench/, torch/) includes no detail/ header: what
  it needs is public.
Prints each breach and exits 1.
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


DETAIL_INCLUDE = re.compile(r'^\s*#\s*include\s*<(umsync/(?:[^>]*/)?detail/[^>]+)>', re.MULTILINE)
COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/', re.DOTALL)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
DIRECTIVE = re.compile(r'^\s*#.*?(?<!\\)$', re.MULTILINE | re.DOTALL)
NAMESPACE_MACRO = re.compile(r'\bUMSYNC_NAMESPACE_(?:BEGIN|END)\b')
DETAIL_NAMESPACE = re.compile(r'\bnamespace\s+(?:\w+::)*detail(?:::\w+)*\s*\{')


def code_outside_detail(text: str) -> str:
    """The header's code (comments, strings, directives and umsync's namespace macros removed)
    without its `namespace detail { ... }` blocks and without any namespace's opening words."""
    code = NAMESPACE_MACRO.sub(' ', DIRECTIVE.sub(' ', STRING.sub('""', COMMENT.sub(' ', text))))
    kept, position = [], 0
    for opening in DETAIL_NAMESPACE.finditer(code):
        if opening.start() < position:
            continue  # nested in a block already cut
        kept.append(code[position:opening.start()])
        depth, index = 1, opening.end()
        while depth and index < len(code):
            depth += {'{': 1, '}': -1}.get(code[index], 0)
            index += 1
        position = index
    kept.append(code[position:])
    return re.sub(r'\bnamespace\s+[\w:]*', ' ', ''.join(kept))


def internals_breaches(root: pathlib.Path) -> list:
    breaches = []
    for header in sorted(root.rglob('*.hpp')) + sorted(root.rglob('*.cuh')):
        relative = header.relative_to(root).as_posix()
        text = header.read_text()
        internal = 'detail' in relative.split('/')[:-1]
        if internal:
            if not DETAIL_NAMESPACE.search(text):
                breaches.append(f'umsync/{relative} is under a detail/ folder but opens no detail namespace')
        elif DETAIL_NAMESPACE.search(text) and not re.search(r'\w', code_outside_detail(text)):
            breaches.append(f'umsync/{relative} declares only internal names: move it under a detail/ folder')
    repository = root.parents[1]
    for folder in ('examples', 'bench', 'torch'):
        for source in sorted((repository / folder).rglob('*')):
            if source.suffix not in ('.cu', '.cuh', '.cpp', '.hpp', '.h') or not source.is_file():
                continue
            for included in DETAIL_INCLUDE.findall(source.read_text()):
                breaches.append(f'{source.relative_to(repository).as_posix()} includes <{included}>: users\' code needs only public headers')
    return breaches


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
    breaches = internals_breaches(root)
    for breach in breaches:
        print(breach)
    if breaches:
        return 1
    print(f'{len(graph)} folders and top-level headers, no include loop; internals only in detail/ folders')
    return 0


if __name__ == '__main__':
    sys.exit(main())
