#!/usr/bin/env bash
# Zero-cost check of umsync's typed device-side code on the generated code.
#   bash scripts/ci/sass-check.sh BUILD_DIR
# Compiles each test/sass/*.cu to a cubin (nvcc of BUILD_DIR, release flags, no UMSYNC_DEBUG),
# dumps its SASS with cuobjdump and requires, for every pair raw_<name> / umsync_<name>:
# identical instruction sequences; for barrier pairs identical BAR lines whose id and count are
# immediate operands; for cluster pairs (cluster_*) identical cluster barrier (UCGABAR_*) lines;
# for PDL pairs (pdl_*) the trigger (PREEXIT) and the wait (ACQBULK) in both.
# Prints what it compared; exits non-zero on a difference. cuobjdump is looked for next to nvcc,
# then as $CUOBJDUMP, then on PATH (it needs nvdisasm: next to it, on PATH or in NVDISASM_PATH).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: sass-check.sh BUILD_DIR}" && pwd)
cache="$build/CMakeCache.txt"

nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$cache" 2>/dev/null || true)
[ -x "${nvcc:-}" ] || nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cuobjdump="$(dirname "$nvcc")/cuobjdump"
[ -x "$cuobjdump" ] || cuobjdump=${CUOBJDUMP:-}
[ -x "$cuobjdump" ] || cuobjdump=$(command -v cuobjdump || true)
if [ -z "$cuobjdump" ]; then
  echo "sass-check: cuobjdump not found next to $nvcc nor on PATH" >&2
  exit 2
fi
arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$cache" 2>/dev/null | sed 's/[;-].*//; s/[^0-9].*$//')
arch=${arch:-90}

work="$build/sass-check"
mkdir -p "$work"
echo "sass-check: $nvcc -arch=sm_$arch, $cuobjdump"
dumps=()
for source in "$root"/test/sass/*.cu; do
  stem=$(basename "$source" .cu)
  source_arch="sm_$arch"
  case "$stem" in
    *_sm90a_sass)  # sm_90a-only instructions (wgmma): compiled for sm_90a, on a Hopper build only
      if [ "$arch" != 90 ]; then
        echo "sass-check: $stem left out: it needs sm_90a and this build is for sm_$arch"
        continue
      fi
      source_arch=sm_90a ;;
  esac
  "$nvcc" -std=c++20 -O3 -arch="$source_arch" -cubin -I"$root/include" -o "$work/$stem.cubin" "$source"
  "$cuobjdump" --dump-sass "$work/$stem.cubin" >"$work/$stem.sass"
  dumps+=("$work/$stem.sass")
done

python3 - "${dumps[@]}" <<'PY'
import re, sys

functions, current = {}, None
for line in (line for dump in sys.argv[1:] for line in open(dump)):
    m = re.search(r"Function : (\S+)", line)
    if m:
        if m.group(1) in functions:
            print(f"FAIL: kernel {m.group(1)} defined in two test/sass files")
            sys.exit(1)
        current = functions.setdefault(m.group(1), [])
        continue
    m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
    if m and current is not None:
        current.append(re.sub(r"\s+", " ", m.group(1)).strip())

MARKERS = {"cluster_": ("UCGABAR_ARV", "UCGABAR_WAIT"), "pdl_": ("PREEXIT", "ACQBULK")}
bar_immediate = re.compile(r"^BAR\.[A-Z_.]+ 0x[0-9a-f]+(, 0x[0-9a-f]+)?$")
names = sorted(n[len("raw_"):] for n in functions if n.startswith("raw_"))
failures = 0
if not names:
    print("FAIL: no raw_* kernels in the SASS dump")
    sys.exit(1)
for name in names:
    raw, typed = functions.get("raw_" + name), functions.get("umsync_" + name)
    if typed is None:
        print(f"FAIL {name}: umsync_{name} missing")
        failures += 1
        continue
    # Pairs of a kind named by their prefix must keep that kind's instructions (both identical and
    # present): the cluster barrier's arrive and wait, PDL's trigger (PREEXIT) and wait (ACQBULK).
    kind = next((prefix for prefix in MARKERS if name.startswith(prefix)), None)
    marker_prefixes = MARKERS[kind] if kind else ("BAR",)
    raw_bar = [i for i in raw if i.startswith(marker_prefixes)]
    typed_bar = [i for i in typed if i.startswith(marker_prefixes)]
    problems = []
    if raw != typed:
        diff = next((k for k, (a, b) in enumerate(zip(raw, typed)) if a != b), min(len(raw), len(typed)))
        problems.append(f"instruction sequences differ at {diff} "
                        f"({len(raw)} vs {len(typed)} instructions): "
                        f"{raw[diff] if diff < len(raw) else '-'} | {typed[diff] if diff < len(typed) else '-'}")
    if raw_bar != typed_bar:
        problems.append(f"barrier lines differ: {raw_bar} vs {typed_bar}")
    if kind:
        missing = [m for m in MARKERS[kind] if not any(i.startswith(m) for i in typed_bar)]
        if missing:
            problems.append("no " + " and no ".join(missing) + " instruction")
    elif name != "syncwarp":
        if not typed_bar:
            problems.append("no BAR instruction")
        problems += [f"not immediate: {i}" for i in typed_bar if not bar_immediate.match(i)]
    status = "FAIL" if problems else "same"
    shown = "; ".join(typed_bar) if typed_bar else "(no BAR; " + str(len(typed)) + " instructions)"
    print(f"{status:4s} {name:16s} raw: {'; '.join(raw_bar) or '-':40s} umsync: {shown}")
    for p in problems:
        print(f"     {p}")
    failures += bool(problems)
print(f"sass-check: {len(names) - failures} of {len(names)} pairs identical")
sys.exit(1 if failures else 0)
PY
