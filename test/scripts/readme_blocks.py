#!/usr/bin/env python3
"""The C++ blocks of README.md, for the README test (docs/testing.md, "The README is tested").

A C++ block is a fenced block whose info string is cpp, c++, cxx, cu or cuda; other blocks (sh,
cmake, ...) are not C++ and are ignored. Blocks are numbered 1, 2, ... in README order, every C++
block counted. An HTML comment on the line before a block (blank lines between allowed) changes
what the test does with it:

  <!-- readme-test: expect-compile-error: umsync: <text> -->   must not compile, with that error
  <!-- readme-test: skip: <reason> -->                         not compiled; the reason is printed

Any other block must compile as written and run. Commands:

  readme_blocks.py list README.md
      prints every C++ block: number, lines, what the test does with it, its first line.
  readme_blocks.py generate README.md OUT_DIR
      writes OUT_DIR/readme_block_<N>.hpp for every block that compiles or must not compile (the
      block's text after a #line directive, so errors name README lines),
      OUT_DIR/readme_compile_fail_block_<N>.cu for every expect-compile-error block (a file for
      cmake/umsync-compile-fail.cmake: its expect-error line, then the fill-ins file
      test/readme/readme_compile_fail.cu with UMSYNC_README_BLOCK_<N> defined, except in the
      control build) and OUT_DIR/readme_blocks.txt (one line per block: number, action). Files
      whose text is unchanged are not rewritten; files of blocks that are gone are removed.
  readme_blocks.py check README.md TEST_FILE COMPILE_FAIL_FILE
      fails (exit 1) unless every block that compiles is included exactly once by TEST_FILE
      (#include "readme_block_<N>.hpp"), every expect-compile-error block exactly once by
      COMPILE_FAIL_FILE inside #if defined(UMSYNC_README_BLOCK_<N>), no file includes a block that
      is not there or not of that kind, and every #include of a compiled block is also made by
      TEST_FILE itself before its first test case (an #include inside a function only works when
      the header was included before).
"""
import pathlib
import re
import sys

CXX_LANGUAGES = {'cpp', 'c++', 'cxx', 'cu', 'cuda'}
FENCE = re.compile(r'^(```+|~~~+)\s*([^\s`]*)')
MARKER = re.compile(r'^\s*<!--\s*readme-test:\s*(.*?)\s*-->\s*$')
BLOCK_INCLUDE = re.compile(r'^\s*#\s*include\s*"readme_block_(\d+)\.hpp"', re.MULTILINE)
GUARD = re.compile(r'^\s*#\s*if\s+defined\s*\(\s*UMSYNC_README_BLOCK_(\d+)\s*\)\s*\n\s*#\s*include\s*"readme_block_(\d+)\.hpp"',
                   re.MULTILINE)
HEADER_INCLUDE = re.compile(r'^\s*#\s*include\s*(<[^>]+>|"[^"]+")', re.MULTILINE)


class Block:
    def __init__(self, number, first_line, last_line, text, action, argument):
        self.number = number
        self.first_line = first_line  # 1-based line of the first line of code
        self.last_line = last_line
        self.text = text
        self.action = action  # 'compile', 'expect-compile-error' or 'skip'
        self.argument = argument  # the expected error text, or the reason to skip

    def describe(self):
        first = next((line.strip() for line in self.text.splitlines() if line.strip()), '(empty)')
        extra = f' "{self.argument}"' if self.argument else ''
        return f'block {self.number} (README lines {self.first_line}-{self.last_line}): {self.action}{extra}: {first}'


def parse_marker(text, line_number):
    """(action, argument) of a readme-test comment; raises ValueError when it is malformed."""
    action, _, argument = text.partition(':')
    action = action.strip()
    argument = argument.strip()
    if action == 'expect-compile-error':
        if not argument.startswith('umsync: '):
            raise ValueError(f'line {line_number}: expect-compile-error needs the expected text, starting '
                             f'"umsync: " (<!-- readme-test: expect-compile-error: umsync: ... -->)')
        return action, argument
    if action == 'skip':
        if not argument:
            raise ValueError(f'line {line_number}: skip needs a reason (<!-- readme-test: skip: why -->)')
        return action, argument
    raise ValueError(f'line {line_number}: unknown readme-test comment "{text}" '
                     f'(known: expect-compile-error: <text>, skip: <reason>)')


def read_blocks(readme: pathlib.Path):
    lines = readme.read_text().splitlines()
    blocks = []
    marker = None  # (action, argument, line) of a readme-test comment waiting for its block
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = FENCE.match(line)
        if not fence:
            found = MARKER.match(line)
            if found:
                if marker:
                    raise ValueError(f'line {index + 1}: a second readme-test comment; the one on line '
                                     f'{marker[2]} has no block')
                marker = (*parse_marker(found.group(1), index + 1), index + 1)
            elif line.strip() and marker:
                raise ValueError(f'line {marker[2]}: a readme-test comment must come right before a C++ block')
            index += 1
            continue
        ticks, language = fence.group(1), fence.group(2).lower()
        end = index + 1
        while end < len(lines) and not lines[end].startswith(ticks):
            end += 1
        if end == len(lines):
            raise ValueError(f'line {index + 1}: a code block that is never closed')
        if language in CXX_LANGUAGES:
            action, argument = ('compile', '') if not marker else marker[:2]
            blocks.append(Block(len(blocks) + 1, index + 2, end, '\n'.join(lines[index + 1:end]) + '\n', action,
                                argument))
        elif marker:
            raise ValueError(f'line {marker[2]}: a readme-test comment before a block that is not C++ ({language})')
        marker = None
        index = end + 1
    if marker:
        raise ValueError(f'line {marker[2]}: a readme-test comment with no block after it')
    return blocks


def header_text(block, readme):
    return (f'// README.md block {block.number} (lines {block.first_line}-{block.last_line}), written by '
            f'test/scripts/readme_blocks.py from the README: edit the README, not this file.\n'
            f'#line {block.first_line} "{readme.as_posix()}"\n{block.text}')


def compile_fail_text(block, fill_ins):
    return (f'// README.md block {block.number} (lines {block.first_line}-{block.last_line}) is marked '
            f'expect-compile-error; written by test/scripts/readme_blocks.py.\n'
            f'// expect-error: {block.argument}\n'
            f'#if !defined(UMSYNC_CF_CONTROL)\n'
            f'#  define UMSYNC_README_BLOCK_{block.number}\n'
            f'#endif\n'
            f'#include "{fill_ins.as_posix()}"\n')


def write_if_changed(path: pathlib.Path, text: str):
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def generate(readme: pathlib.Path, out_dir: pathlib.Path) -> int:
    blocks = read_blocks(readme)
    out_dir.mkdir(parents=True, exist_ok=True)
    fill_ins = pathlib.Path(__file__).resolve().parents[1] / 'readme' / 'readme_compile_fail.cu'
    wanted = {}
    for block in blocks:
        if block.action in ('compile', 'expect-compile-error'):
            wanted[f'readme_block_{block.number}.hpp'] = header_text(block, readme.resolve())
        if block.action == 'expect-compile-error':
            wanted[f'readme_compile_fail_block_{block.number}.cu'] = compile_fail_text(block, fill_ins)
    wanted['readme_blocks.txt'] = ''.join(f'{block.number} {block.action}\n' for block in blocks)
    for stale in list(out_dir.glob('readme_block_*.hpp')) + list(out_dir.glob('readme_compile_fail_block_*.cu')):
        if stale.name not in wanted:
            stale.unlink()
    for name, text in wanted.items():
        write_if_changed(out_dir / name, text)
    return 0


def file_scope(text: str) -> str:
    """The part of a test file before its first test case."""
    first = re.search(r'^TEST_CASE\(', text, re.MULTILINE)
    return text if not first else text[:first.start()]


def check(readme: pathlib.Path, test_file: pathlib.Path, compile_fail_file: pathlib.Path) -> int:
    blocks = read_blocks(readme)
    test_text = test_file.read_text()
    compile_fail_text_ = compile_fail_file.read_text()
    included = [int(n) for n in BLOCK_INCLUDE.findall(test_text)]
    guarded = []
    for guard, header in GUARD.findall(compile_fail_text_):
        if guard != header:
            print(f'{compile_fail_file.name}: UMSYNC_README_BLOCK_{guard} guards readme_block_{header}.hpp')
            return 1
        guarded.append(int(guard))
    failures = []
    by_number = {block.number: block for block in blocks}
    for block in blocks:
        print(block.describe())
        if block.action == 'compile':
            if included.count(block.number) != 1:
                failures.append(f'block {block.number} must compile and run: {test_file.name} includes '
                                f'"readme_block_{block.number}.hpp" {included.count(block.number)} times, not once')
            if block.number in guarded:
                failures.append(f'block {block.number} must compile, but {compile_fail_file.name} expects it to fail')
            scope = file_scope(test_text)
            for header in HEADER_INCLUDE.findall(block.text):
                if not re.search(r'^\s*#\s*include\s*' + re.escape(header), scope, re.MULTILINE):
                    failures.append(f'block {block.number} includes {header}: {test_file.name} must include it '
                                    f'itself, before its first TEST_CASE')
        elif block.action == 'expect-compile-error':
            if guarded.count(block.number) != 1:
                failures.append(f'block {block.number} must not compile: {compile_fail_file.name} has '
                                f'{guarded.count(block.number)} "#if defined(UMSYNC_README_BLOCK_{block.number})" '
                                f'including it, not one')
            if block.number in included:
                failures.append(f'block {block.number} must not compile, but {test_file.name} includes it')
        elif block.number in included or block.number in guarded:
            failures.append(f'block {block.number} is skipped ({block.argument}), but a test file includes it')
    for number in sorted(set(included) | set(guarded)):
        if number not in by_number:
            failures.append(f'a test file includes readme_block_{number}.hpp; README.md has {len(blocks)} C++ blocks')
    counts = {action: sum(block.action == action for block in blocks)
              for action in ('compile', 'expect-compile-error', 'skip')}
    print(f'{len(blocks)} C++ blocks in {readme.name}: {counts["compile"]} compile and run '
          f'({test_file.name}), {counts["expect-compile-error"]} must not compile ({compile_fail_file.name}), '
          f'{counts["skip"]} skipped')
    for failure in failures:
        print(f'FAILED: {failure}')
    return 1 if failures else 0


def main(argv) -> int:
    try:
        if len(argv) == 3 and argv[1] == 'list':
            for block in read_blocks(pathlib.Path(argv[2])):
                print(block.describe())
            return 0
        if len(argv) == 4 and argv[1] == 'generate':
            return generate(pathlib.Path(argv[2]), pathlib.Path(argv[3]))
        if len(argv) == 5 and argv[1] == 'check':
            return check(pathlib.Path(argv[2]), pathlib.Path(argv[3]), pathlib.Path(argv[4]))
    except ValueError as problem:
        print(f'{argv[2]}: {problem}')
        return 1
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
