#!/usr/bin/env bash
# Malformed frames into each NIC design's receive path during a live transfer, many of them:
# the ns-3 suite presto-hostile with PRESTO_HOSTILE_FRAMES frames per design (the ctest runs
# 4,000). Prints each design's drop counters by reason and the suite's verdict.
# Not in CI: 1,000,000 frames take about a minute per design.
# usage: fuzz-segments-long.sh PRESTO_TEST_RUNNER [FRAMES (default 1000000)]
set -u
runner=$1
frames=${2:-1000000}
PRESTO_HOSTILE_FRAMES=$frames "$runner" --suite=presto-hostile --verbose 2>&1 |
    grep -E 'frames;|^(PASS|FAIL)|^  (PASS|FAIL)|test='
exit "${PIPESTATUS[0]}"
