#!/usr/bin/env bash
# Fetches ptxas (and the rest of NVIDIA's nvcc wheel on PyPI) once into
# .cache/nvcc/, without installing anything; prints the path to ptxas.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=.cache/nvcc
if ! [ -x "$tools/nvidia/cuda_nvcc/bin/ptxas" ]; then
  mkdir -p "$tools"
  python3 -m pip download -q --no-deps nvidia-cuda-nvcc-cu12 -d "$tools/whl" >&2
  python3 -m zipfile -e "$tools"/whl/*.whl "$tools" >&2
  chmod +x "$tools/nvidia/cuda_nvcc/bin/ptxas"
fi
echo "$PWD/$tools/nvidia/cuda_nvcc/bin/ptxas"
