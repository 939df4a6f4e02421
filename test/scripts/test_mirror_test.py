#!/usr/bin/env python3
"""host.test_mirror: test/ mirrors include/umsync/ (docs/testing.md).

Every folder of test/ outside the special folders is a folder of include/umsync/ (or a
compile_fail/ folder inside one), and every test file there names a header of its folder:
<header>_test.cu, <header>_host_test.cpp, <header>_debug_test.cu, <header>_debug_host_test.cpp,
or <header>_<aspect>_... for a second file of one header. The exceptions are listed below.

  test_mirror_test.py <test dir> <include/umsync dir>
"""
import pathlib
import re
import sys

# Folders of test/ that are not part of the mirror (test/CMakeLists.txt, UMSYNC_TEST_SPECIAL_FOLDERS).
SPECIAL = {"support", "scripts", "package", "readme", "sass", "zero_cost", "cccl35", "rmm", "nvtx", "pdl", "launch"}
# Tests of no one header, with the reason.
EXCEPTIONS = {
    "soak_test.cu": "10^6 allocate/use/free cycles across launch, pools and buffers",
    "usage_debug_test.cu": "UMSYNC_DEBUG usage checks across the memory protocol, launch and copies",
    "usage_debug_host_test.cpp": "the same checks that need no device",
    "memory/resource_conformance_test.cu": "the conformance suite (support/resource_conformance.hpp) over memory/'s resources",
    "memory/resource_conformance_host_test.cpp": "the same suite's host cases",
}
SUFFIX = re.compile(r"(_debug)?(_host)?_test\.(cu|cpp)$")


def main(test_dir, include_dir):
    test_dir, include_dir = pathlib.Path(test_dir), pathlib.Path(include_dir)
    errors = []
    for path in sorted(test_dir.rglob("*")):
        rel = path.relative_to(test_dir)
        if rel.parts[0] in SPECIAL or "__pycache__" in rel.parts:
            continue
        folder = [p for p in rel.parts[:-1] if p != "compile_fail"] if path.is_file() else None
        if path.is_dir():
            if not any(p.is_file() for p in path.rglob("*")):
                continue  # an empty folder (left by a move) is no part of the tree git knows
            parts = [p for p in rel.parts if p != "compile_fail"]
            if rel.parts.count("compile_fail") > 1 or not (include_dir.joinpath(*parts)).is_dir():
                errors.append(f"test/{rel.as_posix()}/ is no folder of include/umsync/ (nor a compile_fail/ folder of one)")
            continue
        if "compile_fail" in rel.parts or rel.name == "CMakeLists.txt":
            continue
        if rel.as_posix() in EXCEPTIONS:
            continue
        if not SUFFIX.search(rel.name):
            errors.append(f"test/{rel.as_posix()} is not named as a test (helpers go to test/support/)")
            continue
        stem = SUFFIX.sub("", rel.name)
        headers = {h.stem for h in include_dir.joinpath(*folder).glob("*.hpp")}
        if stem not in headers and not any(stem.startswith(h + "_") for h in headers):
            where = "/".join(folder) or "the top level"
            errors.append(f"test/{rel.as_posix()} names no header of include/umsync/{'/'.join(folder)} ({where}): "
                          "rename it after its header, move it beside it, or list it in EXCEPTIONS with the reason")
    for error in errors:
        print("FAIL:", error)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
