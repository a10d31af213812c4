#!/usr/bin/env bash
# Session 8, device call 1: NTT tests on the lazy build, then NTT benches of
# the build and its variants (pre-lazy base, prefetch, caps).
set -u
tar xzf .gpu/bundle.tar.gz -C .gpu
export CUZK_CUBIN_DIR=$PWD/.gpu/cubin CUDA_CACHE_MAXSIZE=4294967296
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
t0=$(date +%s)
.gpu/bin/bench-gpu_ntt 20 24 26 27 2>&1 | tee $OUT/bench-ntt.txt
for m in .gpu/extra/*.cubin .gpu/variants/ntt-*.cubin; do
  echo "== $m" | tee -a $OUT/bench-ntt-variants.txt
  .gpu/bin/bench-gpu_ntt --module $m 24 27 2>&1 | tee -a $OUT/bench-ntt-variants.txt
done
.gpu/bin/bench-gpu_ntt 24 27 2>&1 | tee -a $OUT/bench-ntt-again.txt
echo "benches done at $(( $(date +%s) - t0 )) s"
.gpu/run-tests.sh gpu_ntt gpu_prover gpu_arith gpu_fr > $OUT/tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "test result|SKIPPED|FAILED|panicked|Segmentation" $OUT/tests.log | sort | uniq -c
