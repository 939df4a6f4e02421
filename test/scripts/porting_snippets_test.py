#!/usr/bin/env python3
"""host.porting_snippets: every C++ block of docs/porting.md is code of examples/porting.cu.

    python3 test/scripts/porting_snippets_test.py [docs/porting.md examples/porting.cu]

The example is compiled with warnings as errors and run by the GPU suite; this check keeps the
guide's snippets from drifting away from it. A block matches when its lines, stripped of leading
and trailing blanks, appear in the example as consecutive lines, stripped the same way."""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def main(argv):
    guide = argv[1] if len(argv) > 1 else os.path.join(ROOT, "docs", "porting.md")
    example = argv[2] if len(argv) > 2 else os.path.join(ROOT, "examples", "porting.cu")
    with open(guide) as f:
        blocks = re.findall(r"^```(?:cpp|c\+\+|cu|cuda)\n(.*?)^```", f.read(), re.M | re.S)
    with open(example) as f:
        code = [line.strip() for line in f]
    joined = "\n".join(code)
    failures = 0
    for number, block in enumerate(blocks, 1):
        lines = [line.strip() for line in block.splitlines()]
        if "\n" + "\n".join(lines) + "\n" not in "\n" + joined + "\n":
            failures += 1
            print(f"porting.md block {number} is not code of {os.path.basename(example)}:\n{block}")
    if not blocks:
        print(f"{guide} has no C++ block")
        return 1
    print(f"{len(blocks) - failures} of {len(blocks)} blocks of porting.md are code of {os.path.basename(example)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
