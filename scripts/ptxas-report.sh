#!/usr/bin/env bash
# Registers, stack frame and spills per kernel, without a GPU: builds the
# kernels' PTX (extra rustc flags may follow, e.g. --cfg cuzk_generic_mul) and
# runs ptxas -v for sm_90 from NVIDIA's nvcc wheel on PyPI (downloaded once
# into .cache/, not installed). ptxas is the compiler the driver's JIT uses,
# so these are the numbers the H200 sees (up to ptxas version differences).
# Usage: scripts/ptxas-report.sh [rustc flags...]
#   KERNEL_FILTER=regex keeps matching kernels; PTX_REPORT_DIR sets the target dir.
set -euo pipefail
cd "$(dirname "$0")/.."
ptxas=$(scripts/fetch-ptxas.sh)
dir=$(realpath -m "${PTX_REPORT_DIR:-target/ptx-report}")
(cd kernels && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=$dir cargo rustc --release --lib \
   --target nvptx64-nvidia-cuda -Zbuild-std=core -- --emit=asm -C panic=abort -C codegen-units=1 \
   -C debuginfo=0 -C target-cpu=sm_80 "$@" >&2)
ptx=$(ls -t $dir/nvptx64-nvidia-cuda/release/deps/cuzk_kernels-*.s | head -n 1)
"$ptxas" -arch=sm_90 -O3 -v "$ptx" -o $dir/kernels.cubin 2>&1 |
  awk '/Function properties for/{name=$NF} /stack frame/{sf=$0} /Used [0-9]+ registers/{match($0,/Used [0-9]+ registers/); printf "%-26s %-18s %s\n", name, substr($0,RSTART,RLENGTH), sf}' |
  grep -E "${KERNEL_FILTER:-.}" | sort
