#!/usr/bin/env bash
# Runs on the GPU machine, from the repo root, over a bundle made by
# scripts/gpu-bundle.sh: GPU tests, ptxas resource reports and the
# arithmetic throughput bench for every PTX variant in .gpu/ptx/.
# Writes logs to ${OUT:-/tmp/cuzk-out}.
set -uo pipefail
out=${OUT:-/tmp/cuzk-out}; mkdir -p "$out"
# The driver JIT-compiles the PTX on first load; keep the result for later loads.
export CUDA_CACHE_MAXSIZE=4294967296
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv | tee "$out/gpu.txt"
# Resource reports (registers, stack, spills) in the background: ptxas is
# the same compiler the driver's JIT runs.
for p in .gpu/ptx/*.ptx; do
  ( ptxas -arch=sm_90 -O3 -v "$p" -o "${p%.ptx}.cubin" > "$out/ptxas-$(basename "${p%.ptx}").txt" 2>&1 ) &
done
t0=$(date +%s)
.gpu/run-tests.sh > "$out/tests.log" 2>&1; echo "tests rc=$? in $(( $(date +%s) - t0 )) s"
grep -E "test result|SKIPPED|FAILED|panicked|Segmentation" "$out/tests.log" | sort | uniq -c
wait
mods=(); for c in .gpu/ptx/*.cubin; do [ -e "$c" ] && mods+=(--module "$c"); done
.gpu/bin/bench-gpu_arith "${mods[@]}" 2>&1 | tee "$out/bench.txt"
for f in "$out"/ptxas-*.txt; do
  echo "== $f"; grep -A1 -E "Compiling entry function '(bench_|g2_add|g1_add_mixed|fp_mul|fr_mul)" "$f" | grep -E "Used|spill|stack" | head -24
done
