#!/usr/bin/env bash
# Builds the `cuda` test, example and bench executables here and copies them
# into .gpu/ (git-ignored), for a GPU machine that has no Rust toolchain:
# pass `.gpu` in the device call's carry and run `.gpu/run-tests.sh` there.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.gpu
rm -rf "$out"; mkdir -p "$out/bin"
msgs=$(scripts/with-cuda.sh cargo test --release --workspace --features cuda --no-run --message-format=json 2>/dev/null)
echo "$msgs" | python3 -c '
import json, sys, shutil
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        name = m["target"]["name"] + ("-lib" if m["target"]["kind"] == ["lib"] else "")
        shutil.copy(m["executable"], sys.argv[1] + "/bin/test-" + name)
' "$out"
scripts/with-cuda.sh cargo build --release --features cuda --examples --benches >&2
cp target/release/examples/prove_partition "$out/bin/"
for b in target/release/deps/*; do
  case "$b" in *.d|*.rlib|*.rmeta|*.so) continue;; esac
  base=$(basename "$b"); name=${base%-*}
  if [ -x "$b" ] && [ -f "benches/$name.rs" ]; then cp "$b" "$out/bin/bench-$name"; fi
done
cat > "$out/run-tests.sh" <<'EOS'
#!/usr/bin/env bash
# Runs every test executable; exits non-zero if any fails.
cd "$(dirname "$0")/.."
fail=0
for t in .gpu/bin/test-*; do
  echo "== $t"; "$t" --test-threads=1 || fail=1
done
exit $fail
EOS
chmod +x "$out/run-tests.sh"
strip --strip-debug "$out"/bin/*
ls -la "$out/bin"
du -sh "$out"
