#!/usr/bin/env bash
# The SASS instruction mix of kernels, without a GPU: cuobjdump and nvdisasm
# from NVIDIA's wheels on PyPI (downloaded once into .cache/, not installed) on a
# cubin, by default the newest whole-module one scripts/gpu-bundle.sh
# compiled (target/cubin-cache). Prints, per kernel matching the regex, the
# opcode counts (with modifiers) and the total; `--listing` prints the SASS.
# Usage: scripts/sass-mix.sh KERNEL_REGEX [--listing] [CUBIN]
set -euo pipefail
cd "$(dirname "$0")/.."
tools=.cache/cuobjdump
if ! [ -x "$tools/nvidia/cu13/bin/nvdisasm" ]; then
  mkdir -p "$tools"
  python3 -m pip download -q --no-deps nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm -d "$tools/whl" >&2
  for w in "$tools"/whl/*.whl; do python3 -m zipfile -e "$w" "$tools" >&2; done
  chmod +x "$tools"/nvidia/cu13/bin/*
fi
export PATH=$PWD/$tools/nvidia/cu13/bin:$PATH
regex=$1; shift
listing=false
if [ "${1:-}" = --listing ]; then listing=true; shift; fi
cubin=${1:-$(ls -t target/cubin-cache/*.cubin | head -n 1)}
echo "cubin: $cubin"
"$tools/nvidia/cu13/bin/cuobjdump" -sass "$cubin" | awk -v re="$regex" -v listing=$listing '
  /Function : / { name = $NF; keep = (name ~ re); if (keep) print "== " name; next }
  keep && /^ +\/\*[0-9a-f]+\*\// {
    if (listing == "true") { print; next }
    op = $2; if (op ~ /^@/) op = $3; sub(/;$/, "", op); count[name, op]++; total[name]++
  }
  END {
    if (listing == "true") exit
    for (k in count) { split(k, p, SUBSEP); printf "%-24s %-28s %8d\n", p[1], p[2], count[k] }
    for (n in total) printf "%-24s %-28s %8d\n", n, "TOTAL", total[n]
  }' | sort -k1,1 -k3,3nr
