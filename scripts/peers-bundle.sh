#!/usr/bin/env bash
# Builds peers/ (SupraSeal C2 against cuzk on one GPU) for the GPU machine.
# SupraSeal compiles CUDA C++ with nvcc at build time: nvcc, its NVVM, the
# CUDA runtime and the CCCL headers come from the Python package registry
# (CUDA 13.0, the H200 machine's driver), unpacked into .cache/cuda13 and
# never installed system-wide. The library's own build and CI never need
# them. Output: .gpu/peers.tar.xz (peer_partition, bench-gpu_partition and
# the kernels' cubin); there: tar xJf .gpu/peers.tar.xz -C .gpu &&
# scripts/gpu-measure.sh peers
set -euo pipefail
cd "$(dirname "$0")/.."
cuda=$PWD/.cache/cuda13
root=$cuda/nvidia/cu13
if ! [ -x "$root/bin/nvcc" ]; then
  mkdir -p "$cuda/whl"
  if ! python3 -m pip download -q --no-deps -d "$cuda/whl" "nvidia-cuda-nvcc==13.0.*" "nvidia-nvvm==13.0.*" \
       "nvidia-cuda-crt==13.0.*" "nvidia-cuda-runtime==13.0.*" "nvidia-cuda-cccl==13.0.*" >&2; then
    echo "error: nvcc could not be installed from the Python package registry (nvidia-cuda-nvcc, nvidia-nvvm," \
         "nvidia-cuda-crt, nvidia-cuda-runtime, nvidia-cuda-cccl 13.0): SupraSeal cannot be built without it" >&2
    exit 1
  fi
  for wheel in "$cuda"/whl/*.whl; do python3 -m zipfile -e "$wheel" "$cuda"; done
  chmod +x "$root"/bin/* "$root"/nvvm/bin/*
  # nvcc and cc look for the libraries in lib64.
  ln -sfn lib "$root/lib64"
fi
if ! "$root/bin/nvcc" --version > /dev/null; then
  echo "error: $root/bin/nvcc does not run here" >&2
  exit 1
fi
export NVCC=$root/bin/nvcc CUDA_PATH=$root PATH=$root/bin:$PATH
# The CUDA runtime SupraSeal links statically (cc passes LIBRARY_PATH to
# the linker; RUSTFLAGS would rebuild every crate).
export LIBRARY_PATH=$root/lib${LIBRARY_PATH:+:$LIBRARY_PATH}
# sppark compiles for sm_80 (and PTX); the H200 gets its own code too.
export NVCC_APPEND_FLAGS="-gencode arch=compute_90,code=sm_90"
# bellperson's and neptune's own CUDA kernels (ec-gpu-gen), which
# filecoin-proofs' cuda-supraseal feature builds too: for the H200.
export EC_GPU_CUDA_NVCC_ARGS="--optimize=6 --fatbin --gpu-architecture=sm_90 --generate-code=arch=compute_90,code=sm_90"
# One target directory for the peers and the cuzk bench: the dependencies
# they share are built once.
export CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_TARGET_DIR=$PWD/target/cuda
scripts/with-cuda.sh cargo build --release --manifest-path peers/Cargo.toml
# bellperson's own CUDA prover at the partition's shape (its kernels built
# by ec-gpu-gen with nvcc).
scripts/with-cuda.sh cargo build --release --manifest-path peers/Cargo.toml --no-default-features --features bellperson-cuda --bin peer_bellperson
# tests/c2.rs: filecoin-proofs' C2 against cuzk's on real sectors, with
# SupraSeal (the default features) and with bellperson's own CUDA prover.
c2() {
  scripts/with-cuda.sh cargo test --release --manifest-path peers/Cargo.toml "$@" --test c2 --no-run --message-format=json \
    | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "c2": print(m["executable"])'
}
c2_supraseal=$(c2)
c2_bellperson=$(c2 --no-default-features --features bellperson-cuda)
scripts/with-cuda.sh cargo build --release -p cuzk --features cuda --bench gpu_partition
out=$(mktemp -d)
mkdir -p "$out/bin" "$out/cubin"
cp "$CARGO_TARGET_DIR/release/peer_partition" "$out/bin/"
cp "$CARGO_TARGET_DIR/release/peer_bellperson" "$out/bin/"
cp "$c2_supraseal" "$out/bin/test-peer_c2"
cp "$c2_bellperson" "$out/bin/test-peer_c2_bellperson"
cp "$(ls -t "$CARGO_TARGET_DIR"/release/deps/gpu_partition-* | grep -v '\.d$' | head -n 1)" "$out/bin/bench-gpu_partition"
# The kernels' cubin under the PTX's fingerprint (ptxas: ten minutes, kept
# in target/cubin-cache as gpu-bundle.sh keeps it).
ptx=$(ls -t "$CARGO_TARGET_DIR"/release/build/cuzk-*/out/cuzk_kernels.ptx | head -n 1)
fnv=$(cat "${ptx%.ptx}.fnv")
cached=target/cubin-cache/cuzk_kernels-$fnv-sm_90.cubin
if [ ! -f "$cached" ]; then
  mkdir -p target/cubin-cache
  "$(scripts/fetch-ptxas.sh)" -arch=sm_90 -O3 "$ptx" -o "$cached.tmp"
  mv "$cached.tmp" "$cached"
fi
cp "$cached" "$out/cubin/"
strip --strip-debug "$out"/bin/*
mkdir -p .gpu
tar cf - -C "$out" bin cubin | xz -9 -T2 > .gpu/peers.tar.xz
rm -rf "$out"
ls -la .gpu/peers.tar.xz
