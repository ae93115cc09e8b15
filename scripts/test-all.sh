#!/usr/bin/env bash
# The README's test command: installs what the tests need, then runs every test — the unit and
# property tests of each crate, the cross-tool tests against real gzip/pigz/igzip/libdeflate and
# Python, and a short smoke run of every fuzz target. Ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-test-deps.sh || { echo "dependency installation failed"; exit 1; }

log=$(mktemp)
status=0

echo "== cargo build --release (CLI, drop-in library, harness) =="
cargo build --release --workspace 2>&1 | tail -n 3 || status=1

echo "== cargo test --workspace --release =="
cargo test --workspace --release --no-fail-fast 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

fuzz_passed=0
fuzz_failed=0
if cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "== fuzz smoke runs =="
  for target in $(cd fuzz && cargo +nightly fuzz list); do
    if (cd fuzz && cargo +nightly fuzz run "$target" -- -max_total_time="${FUZZ_SECONDS:-20}" \
          -rss_limit_mb=2048 >/tmp/fuzz-"$target".log 2>&1); then
      echo "fuzz $target: ok ($(grep -o 'Done [0-9]* runs' /tmp/fuzz-"$target".log | tail -1))"
      fuzz_passed=$((fuzz_passed + 1))
    else
      echo "fuzz $target: FAILED"; tail -n 40 /tmp/fuzz-"$target".log
      fuzz_failed=$((fuzz_failed + 1)); status=1
    fi
  done
else
  echo "fuzz smoke runs skipped: no nightly toolchain with cargo-fuzz"
fi

passed=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) passed.*/\1/' | awk '{s+=$1} END{print s+0}')
failed=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) failed.*/\1/' | awk '{s+=$1} END{print s+0}')
passed=$(( ${passed:-0} + fuzz_passed ))
failed=$(( ${failed:-0} + fuzz_failed ))
rm -f "$log"
echo
echo "summary: ${passed} passed, ${failed} failed"
exit $status
