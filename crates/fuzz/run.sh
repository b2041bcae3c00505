#!/bin/sh
# Runs one cargo-fuzz target for SECONDS (default 300) on the seeded corpus and prints libFuzzer's summary.
#   sh crates/fuzz/seed.sh && sh crates/fuzz/run.sh decode 300
# The documented longer run is the same with -runs=10000000 instead of a time limit (docs/robustness.md).
set -e
t=$1; secs=${2:-300}
mkdir -p crates/fuzz/corpus/$t
RUSTC_BOOTSTRAP=1 cargo fuzz run --fuzz-dir crates/fuzz "$t" crates/fuzz/corpus/$t -- \
  -max_total_time="$secs" -print_final_stats=1 2>&1 | tail -25
