#!/usr/bin/env bash
# Runs on the GPU machine, from the repo root, over a bundle made by
# scripts/gpu-bundle.sh: the GPU tests, then the benches (arithmetic with
# every multiplication variant, MSM with every register-cap variant, NTT).
# Usage: scripts/gpu-measure.sh [tests] [arith] [msm] [msm-tables] [msm-windows] [ntt]
# [ntt-variants] [ncu] [msm-affine] [msm-inputs] [msm-bin-windows] [partition-affine] [partition] [compiled] [porep] [c2] [real-sealing] [params-gen] [daemon] [peers] [vram-compiled] [vram-full] [vram-tuning] [vram-tuning-more] [overlap] [small-overlap] [sharing-sweep] [soak] [sanitize]
# (default: tests arith msm ntt). GPU_TESTS="gpu_ntt
# gpu_msm:g2_large" limits the tests to those binaries / filters.
# Writes logs to ${OUT:-/tmp/cuzk-out}.
set -uo pipefail
out=${OUT:-/tmp/cuzk-out}; mkdir -p "$out"
parts=${*:-tests arith msm ntt}
want() { [[ " $parts " == *" $1 "* ]]; }
# The bundle's ahead-of-time cubin of the embedded PTX skips the driver's
# JIT (minutes for the whole module); keep JIT results anyway.
export CUZK_CUBIN_DIR=$PWD/.gpu/cubin CUDA_CACHE_MAXSIZE=4294967296
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv | tee "$out/gpu.txt"
t0=$(date +%s)
# memcheck, racecheck and synccheck over one gpu_msm test (each capped at
# SANITIZE_LIMIT seconds, default 120): sanitize_msm FILTER NAME.
sanitize_msm() {
  for tool in memcheck racecheck synccheck; do
    timeout "${SANITIZE_LIMIT:-120}" compute-sanitizer --tool $tool --print-limit 10 --error-exitcode 9 \
      .gpu/bin/test-gpu_msm --test-threads=1 "$1" > "$out/sanitize-$tool-$2.txt" 2>&1
    echo "[$tool $1] rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$out/sanitize-$tool-$2.txt" | tr '\n' ' ')"
  done
}
if want tests; then
  # All test executables take about 8 minutes (gpu_msm alone 5, gpu_ntt's
  # 2^27 comparison with bellperson's CPU NTT several): GPU_TESTS narrows.
  .gpu/run-tests.sh ${GPU_TESTS:-} > "$out/tests.log" 2>&1; echo "tests rc=$? in $(( $(date +%s) - t0 )) s"
  grep -E "test result|SKIPPED|FAILED|panicked|Segmentation" "$out/tests.log" | sort | uniq -c
fi
v=.gpu/variants
if want arith; then
  mods=(); for c in $v/arith-*.cubin; do mods+=(--module "$c"); done
  .gpu/bin/bench-gpu_arith "${mods[@]}" 2>&1 | tee "$out/bench-arith.txt"
  echo "arith done at $(( $(date +%s) - t0 )) s"
fi
if want msm; then
  .gpu/bin/bench-gpu_msm --profile 2>&1 | tee "$out/bench-msm.txt"
  mods=(); for m in $v/msm-*.cubin; do mods+=(--module "$m"); done
  .gpu/bin/bench-gpu_msm g1 "${mods[@]}" 2>&1 | tee -a "$out/bench-msm-variants.txt"
  echo "msm done at $(( $(date +%s) - t0 )) s"
fi
if want msm-tables; then
  # Precomputed tables (memory: tables × bases), the best configurations
  # measured (docs/PERFORMANCE.md, "MSM", with tables): G2 2^24 at c = 22
  # with 12 tables (39 GB), G1 2^26 at c = 22 with 12 (77 GB), G1 2^27 at
  # c = 22 with 6 (77 GB); both sorts (the padded one is the default with
  # tables); each prints its table build time.
  for run in "g2 2^24:22:12" "g1 2^26:22:12" "g1 2^27:22:6"; do
    IFS=: read -r case c t <<< "$run"
    .gpu/bin/bench-gpu_msm $case --c $c --tables $t --sort counted,padded --profile 2>&1 | tee -a "$out/bench-msm-tables.txt"
  done
fi
if want msm-windows; then
  # Window sizes around the default, per size and curve.
  for sweep in "g1 2^20:13,14,15,16,17" "g1 2^24:16,17,18,19,20" "g1 2^26:18,19,20,21" "g2 2^20:13,14,15,16" "g2 2^24:15,16,17,18"; do
    .gpu/bin/bench-gpu_msm "${sweep%%:*}" --c "${sweep##*:}" 2>&1 | tee -a "$out/bench-msm-windows.txt"
  done
fi
if want ntt; then
  .gpu/bin/bench-gpu_ntt 2>&1 | tee "$out/bench-ntt.txt"
  .gpu/bin/bench-ntt --bench 2>&1 | tee "$out/bench-ntt-criterion.txt"
  .gpu/bin/bench-gpu_ntt --composed-twiddles 24 27 2>&1 | tee -a "$out/bench-ntt.txt"
  .gpu/bin/bench-gpu_ntt --radix2 24 27 2>&1 | tee -a "$out/bench-ntt.txt"
  .gpu/bin/bench-gpu_ntt --composed-inter-pass 26 27 2>&1 | tee -a "$out/bench-ntt.txt"
  .gpu/bin/bench-gpu_ntt --compact-tables 24 27 2>&1 | tee -a "$out/bench-ntt.txt"
  .gpu/bin/bench-gpu_ntt --unfused 27 2>&1 | tee -a "$out/bench-ntt.txt"
  echo "ntt done at $(( $(date +%s) - t0 )) s"
fi
if want ntt-variants; then
  for m in $v/ntt-*.cubin; do
    [ -f "$m" ] || continue  # none in this bundle
    .gpu/bin/bench-gpu_ntt --module "$m" 24 27 2>&1 | tee -a "$out/bench-ntt-variants.txt"
  done
  echo "ntt variants done at $(( $(date +%s) - t0 )) s"
fi
if want partition; then
  # A whole 32 GiB partition (random bases and assignment): ~2.5 min, most
  # of it making the inputs on the host; needs ~100 GB of host memory.
  .gpu/bin/bench-gpu_partition --proofs 3 --workers 2 2>&1 | tee "$out/bench-partition.txt"
  echo "partition done at $(( $(date +%s) - t0 )) s"
fi
if want compiled; then
  # A whole 32 GiB partition through a compiled circuit (random, of the real
  # row weights): the file saved and loaded, witness-only uploads (as
  # classes, then as they are), a, b, c
  # on the GPU, 1 and 2 workers; then full vs witness-only synthesis and
  # recording of the synthetic circuit at ${SYNTH_ROWS:-2^22} constraints.
  .gpu/bin/bench-gpu_partition --compiled --proofs ${PROOFS:-5} --workers 1,2 --synthesis ${SYNTH_ROWS:-4194304} 2>&1 | tee "$out/bench-compiled.txt"
  # The same with the aux values sent as they are instead of as classes.
  .gpu/bin/bench-gpu_partition --compiled --raw-witness --proofs ${PROOFS:-5} --workers 2 2>&1 | tee "$out/bench-compiled-raw.txt"
  echo "compiled done at $(( $(date +%s) - t0 )) s"
fi
if want porep; then
  # Real PoRep partitions (storage-proofs crates): a 2 KiB and an 8 MiB
  # sector, 2 partitions of 1 challenge each, proved through the compiled
  # circuit and compared with bellperson's proofs for the same r, s.
  for sector in ${POREP_SECTORS:-2KiB 8MiB}; do
    .gpu/bin/prove_porep --sector $sector --partitions 2 --challenges 1 --backend gpu --compare-bellperson 2>&1 | tee -a "$out/porep.txt"
  done
  echo "porep done at $(( $(date +%s) - t0 )) s"
fi
if want c2; then
  # PoRep C2 (docs/PERFORMANCE.md, "PoRep C2"): real 2 KiB and 8 MiB sectors
  # sealed with filecoin-proofs-api, a random setup into a temporary
  # parameter cache (2 and 3 minutes), C2 on the GPU and the CPU checked by
  # verify_seal and against bellperson, filecoin-proofs' own C2 as the
  # anchor; then synthetic 32 GiB sectors (the circuit recorded once, about
  # 100 s, and a 47 GB random parameter file: 60 GB of disk), one alone and
  # three in a stream.
  export FIL_PROOFS_PARAMETER_CACHE=${FIL_PROOFS_PARAMETER_CACHE:-/tmp/fil/params} FIL_PROOFS_PARENT_CACHE=${FIL_PROOFS_PARENT_CACHE:-/tmp/fil/parents}
  mkdir -p "$FIL_PROOFS_PARAMETER_CACHE" "$FIL_PROOFS_PARENT_CACHE"
  .gpu/bin/test-porep --ignored --nocapture --test-threads=1 2>&1 | tee "$out/c2-real.txt"
  rm -rf "$FIL_PROOFS_PARAMETER_CACHE"  # the 32 GiB run needs the disk
  # A whole 32 GiB partition's native witness against witness-only
  # synthesis (one core), value by value; then on one core itself.
  .gpu/bin/porep_witness --sector-size 32GiB --compare 2>&1 | tee "$out/c2-witness-32g.txt"
  taskset -c 0 .gpu/bin/porep_witness --sector-size 32GiB --runs 1 2>&1 | tee "$out/c2-witness-32g-one-core.txt"
  for sectors in 1 3; do
    RUST_LOG=info .gpu/bin/porep_c2 --synthetic 32GiB --random-params --backend gpu --sectors $sectors 2>&1 | tee "$out/c2-32g-$sectors.txt"
  done
  echo "c2 done at $(( $(date +%s) - t0 )) s"
fi
if want real-sealing; then
  # The tests CI leaves out, marked ignore (a real circuit's parameter
  # setup takes minutes on CI's 2 cores): real 2 KiB sectors sealed by
  # filecoin-proofs-api, cuzk's own setups, C2 and SnapDeals proofs on the
  # CPU backend accepted by verify_seal and
  # verify_empty_sector_update_proof; the daemon's real C2s, fifty real
  # PoSts and a SnapDeals update over gRPC. The library's tests run first
  # so that the daemon's reuse their setups (~4 min on 16 cores).
  export CUZK_TEST_TMPDIR=${CUZK_TEST_TMPDIR:-/tmp/cuzk-sealing-tests}
  for t in porep_local_setup update real_c2 real_post_and_snap; do
    s=$(date +%s)
    .gpu/bin/test-$t --ignored --test-threads=1 --skip an_8_mib 2>&1 | tee -a "$out/real-sealing.txt" | grep -E "^test |test result"
    echo "$t: $(( $(date +%s) - s )) s" | tee -a "$out/real-sealing.txt"
  done
  rm -rf "$CUZK_TEST_TMPDIR"
  echo "real-sealing done at $(( $(date +%s) - t0 )) s"
fi
if want params-gen; then
  # Parameters made on the GPU (docs/PERFORMANCE.md, "Parameters made from
  # a compiled circuit"): the GPU tests, 2^20 against bellperson's bytes
  # (the same toxic waste, same run), then the 32 GiB partition's shape (a
  # 47 GB file: keep 50 GB of disk free) proved from with 2 workers, every
  # proof verified; then the real 32 GiB circuit's local setup, a sector
  # proved with it (~5 min).
  .gpu/run-tests.sh gpu_generate 2>&1 | tee "$out/params-gen-tests.txt"
  .gpu/bin/generate_params --constraints 1048576 --how gpu --compare-bellperson --out /tmp/gen-2e20.params 2>&1 | tee "$out/params-gen-2e20.txt"
  rm -f /tmp/gen-2e20.params
  (mkdir -p /dev/shm/pp && cd /dev/shm/pp && "$OLDPWD"/.gpu/bin/prove_partition --constraints 130278869 --inputs 328 --compiled --params /tmp/gen-32g.params --proofs 8 --workers 2 --backend gpu) 2>&1 | tee "$out/params-gen-32g.txt"
  rm -rf /tmp/gen-32g.params /dev/shm/pp
  mkdir -p /dev/shm/cc /tmp/fp
  CUZK_CIRCUIT_CACHE=/dev/shm/cc FIL_PROOFS_PARAMETER_CACHE=/tmp/fp .gpu/bin/porep_c2 --synthetic 32GiB --sectors 2 --generate-params gpu --backend gpu 2>&1 | tee "$out/params-gen-c2.txt"
  rm -rf /tmp/fp /dev/shm/cc
  .gpu/bin/test-porep_local_setup_gpu --nocapture 2>&1 | tee -a "$out/params-gen-tests.txt"
  echo "params-gen done at $(( $(date +%s) - t0 )) s"
fi
if want daemon; then
  # The daemon against the library on 3 synthetic 32 GiB sectors, and a
  # WinningPoSt while a C2 runs with and without the urgent lane
  # (cuzk-daemon/tests/gpu_daemon.rs: the real circuit recorded and its
  # parameters made on the GPU, 55 GB on disk; ~7 min); then one sector on
  # one worker with the same files, each partition's phases logged.
  export CUZK_BENCH_DIR=/tmp/cuzk-daemon-bench
  .gpu/bin/test-gpu_daemon --nocapture 2>&1 | grep -vE "DEBUG|TRACE" | tee "$out/daemon.txt"
  CUZK_CIRCUIT_CACHE=$CUZK_BENCH_DIR/circuits FIL_PROOFS_PARAMETER_CACHE=$CUZK_BENCH_DIR/parameters RUST_LOG=cuzk=debug \
    .gpu/bin/porep_c2 --synthetic 32GiB --sectors 1 --workers 1 --backend gpu > "$out/c2-one-worker.txt" 2>&1
  grep -vE "DEBUG" "$out/c2-one-worker.txt" | tail -20
  rm -rf "$CUZK_BENCH_DIR"
  echo "daemon done at $(( $(date +%s) - t0 )) s"
fi
if want peers; then
  # SupraSeal C2 against cuzk on one partition-shaped proof and one random
  # parameter file (47 GB; peers/, built by scripts/peers-bundle.sh):
  # SupraSeal's SRS load, one circuit per call and two, cuzk's first proof
  # with the same r, s compared bit for bit; then cuzk's steady state with
  # 1 and 2 workers on the same file and assignment (~4 min).
  p=/tmp/peer-32g.params
  .gpu/bin/peer_partition --params $p --proofs 3 --batch 2 2>&1 | tee "$out/peers.txt"
  .gpu/bin/bench-gpu_partition --params-file $p --proofs 5 --workers 1,2 2>&1 | tee -a "$out/peers.txt"
  .gpu/bin/bench-gpu_partition --params-file $p --compiled --proofs 5 --workers 1,2 2>&1 | tee -a "$out/peers.txt"
  rm -f $p
  # bellperson's own CUDA prover and cuzk's compiled path on one synthetic
  # PoRep circuit of the partition's shape, another random file of its
  # shape (47 GB), proofs compared bit for bit (~6 min: bellperson's
  # synthesis and proof).
  p=/tmp/peer-bellperson-32g.params
  .gpu/bin/peer_bellperson --params $p 2>&1 | grep -vE "^\[.*(DEBUG|TRACE)" | tee -a "$out/peers.txt"
  rm -f $p
  # Real 2 KiB and 8 MiB sectors: filecoin-proofs' C2 with SupraSeal, with
  # bellperson's CUDA prover and on the CPU, against cuzk's (~3 min).
  .gpu/bin/test-peer_c2 2>&1 | tee -a "$out/peers.txt"
  .gpu/bin/test-peer_c2_bellperson 2>&1 | tee -a "$out/peers.txt"
  BELLMAN_NO_GPU=1 .gpu/bin/test-peer_c2_bellperson 2>&1 | tee -a "$out/peers.txt"
  echo "peers done at $(( $(date +%s) - t0 )) s"
fi
if want vram-compiled; then
  # The H200 standing in for smaller cards (ProverConfig::vram_limit): a
  # 32 GiB partition through a compiled circuit at 48 and 24 GiB and the
  # device's free memory, 2 workers at most, MSM calls carrying their
  # buckets and not, 4 proofs each after two alone (~3 min); then one
  # worker with the next witness written one job ahead (~2 min).
  RUST_LOG=cuzk::gpu::engine=debug .gpu/bin/bench-gpu_partition --compiled --vram-limit 48,24,free --carry on,off --workers 2 --proofs 4 > "$out/vram-compiled.txt" 2>&1
  .gpu/bin/bench-gpu_partition --compiled --vram-limit 48,24 --producer --workers 1 --proofs 5 2>&1 | tee "$out/vram-compiled-producer.txt"
  echo "vram budgets (compiled) done at $(( $(date +%s) - t0 )) s"
fi
if want vram-full; then
  # The same with full assignments at 80, 48, 24 and 16 GiB and the free
  # memory (~6 min), then one worker with the producer at 24 and 16 GiB
  # (~2 min).
  RUST_LOG=cuzk::gpu::engine=debug .gpu/bin/bench-gpu_partition --vram-limit 80,48,24,16,free --carry on,off --workers 2 --proofs 4 > "$out/vram-full.txt" 2>&1
  .gpu/bin/bench-gpu_partition --vram-limit 24,16 --producer --workers 1 --proofs 5 2>&1 | tee "$out/vram-full-producer.txt"
  echo "vram budgets (full assignments) done at $(( $(date +%s) - t0 )) s"
fi
if want vram-tuning; then
  # Two MSM settings not yet on by default, each on and off in the same
  # run: the first level fitted to the device's waves (carried calls of
  # one G1 2^27 MSM in 8 and 16 pieces, per kernel; ~2 min), and with it
  # streamed bases copied ahead into the H MSM's freed VRAM, at 48 GiB
  # with full assignments and 2 workers (~3 min).
  .gpu/bin/bench-gpu_msm "g1 2^27" --calls 1,8,16 --waves off,on --profile > "$out/msm-waves.txt" 2>&1
  grep -vE "INFO|DEBUG" "$out/msm-waves.txt"
  RUST_LOG=cuzk::gpu::engine=debug .gpu/bin/bench-gpu_partition --vram-limit 48 --fill-waves off,on --ahead off,on --workers 2 --proofs 4 > "$out/vram-tuning-full48.txt" 2>&1
  grep -hE "^(===|steady)|MSMs one by one" "$out"/vram-tuning-full48.txt
  echo "vram tuning done at $(( $(date +%s) - t0 )) s"
fi
if want vram-tuning-more; then
  # The same two settings through a compiled circuit at 48 GiB and with
  # full assignments at 24 GiB, one worker and the producer (~6 min).
  RUST_LOG=cuzk::gpu::engine=debug .gpu/bin/bench-gpu_partition --compiled --vram-limit 48 --fill-waves off,on --ahead off,on --producer --workers 1 --proofs 5 > "$out/vram-tuning-compiled48.txt" 2>&1
  RUST_LOG=cuzk::gpu::engine=debug .gpu/bin/bench-gpu_partition --vram-limit 24 --fill-waves off,on --ahead off,on --producer --workers 1 --proofs 5 > "$out/vram-tuning-full24.txt" 2>&1
  grep -hE "^(===|steady)|MSMs one by one" "$out"/vram-tuning-compiled48.txt "$out"/vram-tuning-full24.txt
  echo "vram tuning (more) done at $(( $(date +%s) - t0 )) s"
fi
if want overlap; then
  # Workers sharing one GPU at a whole 32 GiB partition: 1 then 2 workers on
  # the same inputs, 5 proofs each (~5 min; ~100 GB of host memory).
  RUST_LOG=cuzk=debug .gpu/bin/bench-gpu_partition --proofs 5 --workers 1,2 > "$out/bench-overlap.txt" 2>&1
  grep -vE "DEBUG|INFO" "$out/bench-overlap.txt"
  echo "overlap done at $(( $(date +%s) - t0 )) s"
fi
if want small-overlap; then
  # Small proofs (2^17, 2^20): computes one at a time or interleaved, GPU
  # side alone (bench) and through prove_partition's batch (synthesis too).
  for c in 120000 1000000; do
    for sharing in serial interleaved; do
      .gpu/bin/bench-gpu_partition --constraints $c --aux $c --inputs 328 --proofs 24 --workers 2 --sharing $sharing 2>&1 \
        | grep -E "^(assignment|pipelined|steady|proof alone #1)" | sed "s/^/[$c $sharing] /" | tee -a "$out/bench-small-overlap.txt"
    done
    for run in "--compute-sharing serial" "--compute-sharing interleaved" "--compute-sharing interleaved --pinned 0"; do
      .gpu/bin/prove_partition --backend gpu --random-bases --constraints $c --proofs 8 --workers 2 $run 2>&1 \
        | grep -E "^(batch|proof 0)" | sed "s/^/[$c $run] /" | tee -a "$out/prove-small-overlap.txt"
    done
  done
  echo "small overlap done at $(( $(date +%s) - t0 )) s"
fi
if want sharing-sweep; then
  # Where computes one at a time start to beat interleaved ones (2 workers,
  # GPU side alone): 2^22 … 2^26 both ways, 2^27 interleaved (its serial
  # figure is the overlap part's).
  # SWEEP="constraints proofs sharing;…" replaces the default runs.
  runs=("4000000 12 serial" "4000000 12 interleaved" "16000000 10 serial" "16000000 10 interleaved"
        "64000000 6 serial" "64000000 6 interleaved" "130278869 5 interleaved")
  [ -n "${SWEEP:-}" ] && IFS=';' read -ra runs <<< "$SWEEP"
  for run in "${runs[@]}"; do
    read -r c proofs sharing <<< "$run"
    .gpu/bin/bench-gpu_partition --constraints $c --aux $c --inputs 328 --proofs $proofs --workers 2 --sharing $sharing 2>&1 \
      | grep -E "^(pipelined|proof alone #1)" | sed "s/^/[$c $sharing] /" | tee -a "$out/bench-sharing-sweep.txt"
  done
  echo "sharing sweep done at $(( $(date +%s) - t0 )) s"
fi
if want soak; then
  # Two provers (SHA-256 and BLAKE2s gadget circuits) sharing the GPU,
  # 3 workers each, 3 prove_batch calls of 1,000 each (~1 min a path: full
  # synthesis, compiled circuits, one of each); a call that does not return
  # in 60 s is reported as a stall (exit 3).
  for path in full compiled mixed; do
    .gpu/bin/bench-gpu_soak --per-call 1000 --calls 3 --workers 3 --stall-after 60 --path $path 2>&1 | tee -a "$out/soak.txt"
  done
  echo "soak done (rc ${PIPESTATUS[0]}) at $(( $(date +%s) - t0 )) s"
fi
if want sanitize; then
  # compute-sanitizer's four tools over small GPU tests (each run capped at
  # SANITIZE_LIMIT seconds, default 90): "tool binary filter".
  runs=("memcheck gpu_prover two_workers_pipeline_many_proofs" "synccheck gpu_prover two_workers_pipeline_many_proofs"
        "racecheck gpu_prover empty_b_densities_skip_the_b_msms" "initcheck gpu_prover empty_b_densities_skip_the_b_msms"
        "synccheck gpu_msm g1_every_size_up_to_300" "memcheck gpu_ntt inverse_after_forward_is_identity"
        "memcheck gpu_msm carried_calls_match_blst" "racecheck gpu_msm carried_calls_match_blst")
  [ -n "${SANITIZE:-}" ] && IFS=';' read -ra runs <<< "$SANITIZE"
  for run in "${runs[@]}"; do
    read -r tool bin filter <<< "$run"
    log="$out/sanitize-$tool-$bin.txt"
    timeout "${SANITIZE_LIMIT:-90}" compute-sanitizer --tool "$tool" --print-limit 10 --error-exitcode 9 \
      ".gpu/bin/test-$bin" --test-threads=1 "$filter" > "$log" 2>&1
    echo "[$tool $bin $filter] rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$log" | tr '\n' ' ')"
  done
  echo "sanitize done at $(( $(date +%s) - t0 )) s"
fi
if want msm-affine; then
  # The batch-affine first accumulation level: its GPU tests, the three
  # sanitizers over the small one, XYZZ against batch-affine at several
  # streams per thread (one table per case; every row must give the same
  # sum), windows around the default with it, and one ncu report of its
  # G1 2^24 launch.
  .gpu/run-tests.sh gpu_msm:batch_affine gpu_prover:batch_affine > "$out/tests-msm-affine.log" 2>&1
  echo "affine tests rc=$?: $(grep -hE 'test result|panicked' "$out/tests-msm-affine.log" | tr '\n' ' ')"
  sanitize_msm batch_affine_every_size msm-affine
  .gpu/bin/bench-gpu_msm g1 --accumulation xyzz,affine64,affine128,affine256,affine512 --profile 2>&1 | tee "$out/bench-msm-affine.txt"
  .gpu/bin/bench-gpu_msm g2 --accumulation xyzz,affine32,affine64,affine128,affine256 --profile 2>&1 | tee -a "$out/bench-msm-affine.txt"
  for sweep in "g1 2^24:15,16,17,18" "g1 2^27:18,19,20,21" "g2 2^24:15,16,17,18"; do
    .gpu/bin/bench-gpu_msm "${sweep%%:*}" --c "${sweep##*:}" --accumulation xyzz,affine 2>&1 | tee -a "$out/bench-msm-affine.txt"
  done
  ncu --clock-control none --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --print-details all -k regex:accumulate0_affine \
    --launch-skip 2 --launch-count 1 .gpu/bin/bench-gpu_msm g1 2^24 --accumulation affine > "$out/ncu-msm-affine.txt" 2>&1
  echo "msm-affine done at $(( $(date +%s) - t0 )) s"
fi
if want msm-inputs; then
  # The MSMs over a partition's 329 public inputs: without tables (their
  # window steps profiled), over one table per window at c = 4 (the
  # prover's), 3 and 2, then a 32 GiB partition with the prover's input
  # tables on and off (~3 min), and memcheck over the prover's test of them.
  .gpu/bin/bench-gpu_msm inputs --profile 2>&1 | tee "$out/bench-msm-inputs.txt"
  for ct in 4:64 3:86 2:128; do
    .gpu/bin/bench-gpu_msm inputs --c "${ct%%:*}" --tables "${ct##*:}" --profile 2>&1 | tee -a "$out/bench-msm-inputs.txt"
  done
  RUST_LOG=cuzk=debug .gpu/bin/bench-gpu_partition --proofs 2 --workers 1 --input-tables on,off > "$out/bench-partition-inputs.txt" 2>&1
  grep -E "===|MSMs one by one|GPU compute" "$out/bench-partition-inputs.txt"
  timeout "${SANITIZE_LIMIT:-300}" compute-sanitizer --tool memcheck --print-limit 10 --error-exitcode 9 \
    .gpu/bin/test-gpu_prover --test-threads=1 input_msms_over_tables > "$out/sanitize-memcheck-inputs.txt" 2>&1
  echo "[memcheck input_msms_over_tables] rc=$? $(grep -hE 'ERROR SUMMARY|test result' "$out/sanitize-memcheck-inputs.txt" | tr '\n' ' ')"
  echo "msm-inputs done at $(( $(date +%s) - t0 )) s"
fi
if want msm-bin-windows; then
  # The binned sort's pass 1 over one (the default), two and three windows
  # a launch: its GPU tests and the sanitizers over the small one, the G1
  # MSMs it serves (integers, as the H step writes them; 2^27 profiled),
  # then a 32 GiB partition with one and two (~3 min).
  .gpu/run-tests.sh gpu_msm:binned_sort gpu_msm:canonical_scalars > "$out/tests-bin-windows.log" 2>&1
  echo "binned tests rc=$?: $(grep -hE 'test result|panicked' "$out/tests-bin-windows.log" | tr '\n' ' ')"
  sanitize_msm binned_sort_small_sizes bin-windows
  .gpu/bin/bench-gpu_msm "g1 2^27" --form canonical --bin-windows 1,2,3 --profile 2>&1 | tee "$out/bench-msm-bin-windows.txt"
  .gpu/bin/bench-gpu_msm g1 --form canonical,montgomery --bin-windows 1,2 2>&1 | tee -a "$out/bench-msm-bin-windows.txt"
  RUST_LOG=cuzk=debug .gpu/bin/bench-gpu_partition --proofs 2 --workers 1 --bin-windows 1,2 > "$out/bench-partition-bin-windows.txt" 2>&1
  grep -E "===|free before|MSMs one by one|GPU compute" "$out/bench-partition-bin-windows.txt"
  echo "msm-bin-windows done at $(( $(date +%s) - t0 )) s"
fi
if want partition-affine; then
  # A whole 32 GiB partition (random inputs, 2 workers, 3 proofs) with the
  # XYZZ and then the batch-affine first MSM level (~4 min).
  .gpu/bin/bench-gpu_partition --proofs 3 --workers 2 --accumulation xyzz,affine 2>&1 | tee "$out/bench-partition-affine.txt"
  echo "partition-affine done at $(( $(date +%s) - t0 )) s"
fi
if want ncu; then
  # One launch of each hot kernel: stall reasons, occupancy, pipes, memory.
  sections="--section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
  ncu --clock-control none $sections --print-details all -k regex:ntt_dif_pass --launch-skip 6 --launch-count 1 \
    .gpu/bin/bench-gpu_ntt 24 > "$out/ncu-ntt.txt" 2>&1
  ncu --clock-control none $sections --print-details all -k regex:msm_g1_accumulate0 --launch-skip 2 --launch-count 1 \
    .gpu/bin/bench-gpu_msm g1 2^24 > "$out/ncu-msm.txt" 2>&1
  echo "ncu done at $(( $(date +%s) - t0 )) s"
fi
