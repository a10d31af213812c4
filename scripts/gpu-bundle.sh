#!/usr/bin/env bash
# Builds the `cuda` GPU test, example and bench executables here, plus PTX
# variants, into .gpu/bundle.tar.xz (git-ignored) for a GPU machine that has
# no Rust toolchain. There: tar xJf .gpu/bundle.tar.xz -C .gpu && scripts/gpu-measure.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# GPU_BUNDLE_OUT: another folder for the bundle (e.g. while .gpu/ is in use).
out=${GPU_BUNDLE_OUT:-.gpu}
rm -rf "$out"; mkdir -p "$out/bin"
# The daemon's GPU test (gpu_daemon) with the library's: the daemon's cuda
# feature named too.
msgs=$(scripts/with-cuda.sh cargo test --release --workspace --features cuda,cuzk-daemon/cuda --no-run --message-format=json)
echo "$msgs" | python3 -c '
import json, sys, shutil
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        name = m["target"]["name"]
        # The tests that touch the GPU, and the real-sealing tests that CI
        # leaves out (minutes of setup on 2 cores; they prove on the CPU);
        # the rest run in CI.
        if name.startswith(("gpu_", "ptx_")) or name in ("porep_local_setup", "update", "real_c2", "real_post_and_snap"):
            shutil.copy(m["executable"], sys.argv[1] + "/bin/test-" + name)
' "$out"
scripts/with-cuda.sh cargo build --release --features cuda --examples --benches --message-format=json | python3 -c '
import json, sys, shutil
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        kind = m["target"]["kind"][0]
        prefix = {"bench": "bench-", "example": ""}.get(kind)
        if prefix is not None:
            shutil.copy(m["executable"], sys.argv[1] + "/bin/" + prefix + m["target"]["name"])
' "$out"
# The PoRep examples and tests (feature porep: filecoin-proofs and the
# storage-proofs crates); the tests marked ignore are the real setups.
scripts/with-cuda.sh cargo build --release --features cuda,porep --example prove_porep --example porep_c2 --example porep_witness
cp target/release/examples/prove_porep target/release/examples/porep_c2 target/release/examples/porep_witness "$out/bin/"
scripts/with-cuda.sh cargo test --release --features cuda,porep --test porep --test porep_local_setup_gpu --no-run --message-format=json | python3 -c '
import json, sys, shutil
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in ("porep", "porep_local_setup_gpu"):
        shutil.copy(m["executable"], sys.argv[1] + "/bin/test-" + m["target"]["name"])
' "$out"
# PTX variants of the whole kernel crate (cut down to cubins below).
mkdir -p "$out/ptx"
ptx_variant() {  # name, extra rustc flags...
  local name=$1; shift
  (cd kernels && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=../target/ptx-variant-$name cargo rustc --release --lib \
     --target nvptx64-nvidia-cuda -Zbuild-std=core -- --emit=asm -C panic=abort -C codegen-units=1 \
     -C debuginfo=0 -C target-cpu=sm_80 "$@" >&2)
  cp "$(ls -t target/ptx-variant-$name/nvptx64-nvidia-cuda/release/deps/cuzk_kernels-*.s | head -n 1)" "$out/ptx/$name.ptx"
}
ptx_variant generic_u64_mul --cfg cuzk_generic_mul
embedded=$(ls -t target/release/build/cuzk-*/out/cuzk_kernels.ptx | head -n 1)
cp "$embedded" "$out/ptx/embedded.ptx"
# Cubins are compiled here with the local ptxas for the H200 (sm_90),
# fetched once by scripts/fetch-ptxas.sh. ptxas -v reports go to
# target/ptxas-*.txt.
ptxas=$(scripts/fetch-ptxas.sh)
mkdir -p "$out/cubin" "$out/variants"
# Variants hold only the kernels they are compared on (seconds of ptxas
# instead of many minutes for a whole module): the arithmetic benches of
# each multiplication variant, and the MSM kernels under other register caps.
variant() {  # ptx, name, kernel regex, caps...
  local ptx=$1 name=$2; shift 2
  scripts/ptx-select.py "$ptx" "target/variant-$name.ptx" "$@"
  $ptxas -arch=sm_90 -O3 -v "target/variant-$name.ptx" -o "$out/variants/$name.cubin" 2> "target/ptxas-$name.txt"
}
for v in embedded generic_u64_mul; do variant "$out/ptx/$v.ptx" "arith-$v" '^bench_'; done
g1_msm='^msm_(g1_|histogram|popcount|scan_|scatter)'
variant "$out/ptx/embedded.ptx" msm-g1-cap168 "$g1_msm" 'msm_g1_accumulate0=168'
variant "$out/ptx/embedded.ptx" msm-g1-cap128 "$g1_msm" 'msm_g1_accumulate0=128'
# NTT passes uncapped (2 blocks of 256 threads per SM), and all at 3 (cap
# 80) or 4 (cap 64) blocks.
for cap in 0 64 80; do
  variant "$out/ptx/embedded.ptx" ntt-cap$cap '^ntt_' "_pass$=$cap"
done
# Optionally another build's NTT kernels (its PTX, caps included), to time
# against in the same call: NTT_BASELINE_PTX=path scripts/gpu-bundle.sh.
if [ -n "${NTT_BASELINE_PTX:-}" ]; then
  variant "$NTT_BASELINE_PTX" ntt-baseline '^ntt_'
fi
# The executables' whole module compiled ahead, named by the PTX's
# fingerprint as src/gpu/runtime.rs expects: with CUZK_CUBIN_DIR=.gpu/cubin
# the device skips minutes of JIT per fresh build.
fnv=$(cat "${embedded%.ptx}.fnv")  # written by build.rs with the PTX
# Kept by fingerprint, so a bundle whose kernels did not change skips the
# ten minutes of ptxas.
cached=target/cubin-cache/cuzk_kernels-$fnv-sm_90.cubin
if [ ! -f "$cached" ]; then
  mkdir -p target/cubin-cache
  $ptxas -arch=sm_90 -O3 -v "$out/ptx/embedded.ptx" -o "$cached.tmp" 2> target/ptxas-embedded.txt
  mv "$cached.tmp" "$cached"
fi
cp "$cached" "$out/cubin/"
cat > "$out/run-tests.sh" <<'EOS'
#!/usr/bin/env bash
# Runs every test executable, or only those named as NAME or NAME:FILTER
# (e.g. gpu_ntt gpu_msm:g2_large); exits non-zero if any fails.
cd "$(dirname "$0")/.."
fail=0
if [ $# -eq 0 ]; then set -- $(cd .gpu/bin && ls test-* | sed 's/^test-//'); fi
for spec in "$@"; do
  t=.gpu/bin/test-${spec%%:*}; filter=; [[ $spec == *:* ]] && filter=${spec#*:}
  echo "== $t $filter"; "$t" --test-threads=1 $filter || fail=1
done
exit $fail
EOS
chmod +x "$out/run-tests.sh"
strip --strip-debug "$out"/bin/*
# The executables embed the PTX text and share most of their bytes, which
# xz finds (gzip's 32 KiB window does not: 127 MB against the device
# call's 64 MiB carry limit). Unpack there with: tar xJf .gpu/bundle.tar.xz -C .gpu
tar cf - -C "$out" bin cubin variants run-tests.sh | xz -9 -T2 > bundle.tar.xz
size=$(stat -c %s bundle.tar.xz)
if [ "$size" -gt $((60 << 20)) ]; then
  echo "warning: bundle.tar.xz is $((size >> 20)) MiB, over the 64 MiB a device call carries with room to spare: carry fewer executables" >&2
fi
rm -rf "$out"/bin "$out"/ptx "$out"/cubin "$out"/variants "$out"/run-tests.sh
mv bundle.tar.xz "$out/"
ls -la "$out"
