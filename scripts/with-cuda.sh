#!/usr/bin/env bash
# Runs a command with what building and running the `cuda` feature needs on a
# machine without the NVIDIA driver: the rust-src component (the kernels are
# built with -Zbuild-std=core) and a link-only libcuda.so (setup-libcuda.sh).
# Example: scripts/with-cuda.sh cargo test --release --features cuda
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! [ -d "$(rustc --print sysroot)/lib/rustlib/src/rust/library/core" ]; then
  rustup component add rust-src >&2
fi
if [ -z "${CUDA_LIBRARY_PATH:-}" ]; then
  if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so '; then
    :  # a real driver is installed; cust finds it
  else
    CUDA_LIBRARY_PATH=$("$here/setup-libcuda.sh")
    export CUDA_LIBRARY_PATH
    export LD_LIBRARY_PATH="$CUDA_LIBRARY_PATH/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
fi
exec "$@"
