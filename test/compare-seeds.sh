#!/usr/bin/env bash
# Seed stability of the headline comparison: run presto-compare for seeds 1, 2, 3 and report,
# per seed, the devices ordered by small-flow p99 slowdown together with the counters that
# explain the order (fidelity drops, retransmitted segments, timeouts, the busiest FlexTOE
# stage's queue); then whether the order is the same for every seed, and which adjacent pairs
# swap. Exit status 0 when the order is stable, 2 when it is not, 1 on a failed run.
# usage: compare-seeds.sh PRESTO_COMPARE_BINARY [OUT_DIR] [extra presto-compare options...]
# (default OUT_DIR: a temporary directory, removed at the end; simTime: 0.02 s)
set -u
bin=$1
out=${2:-}
shift $(($# < 2 ? $# : 2))
keep=1
if [ -z "$out" ]; then
    out=$(mktemp -d)
    keep=0
fi
mkdir -p "$out" || exit 1
cleanup() { if [ $keep -eq 0 ]; then rm -rf "$out"; fi; }
trap cleanup EXIT

orders=()
for seed in 1 2 3; do
    start=$(date +%s)
    if ! "$bin" --seed=$seed --plot=0 --out="$out/seed$seed" "$@" >"$out/seed$seed.log" 2>&1; then
        echo "seed $seed: presto-compare failed:"
        cat "$out/seed$seed.log"
        exit 1
    fi
    order=$(sed -n 's/^order by small-flow p99: //p' "$out/seed$seed.log")
    orders+=("$order")
    echo "seed $seed ($(($(date +%s) - start)) s): $order"
    # label, small p99, fidelity drops, retx segments, timeouts, FlexTOE stage queue, NIC drops
    python3 - "$out/seed$seed" <<'EOF'
import csv, json, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "comparison.csv"))))
rows.sort(key=lambda r: float(r["small_p99"]) if r["small_p99"] else float("inf"))
print("    %-14s %9s %10s %6s %9s %8s %8s" % ("device", "small p99", "fid.drops", "retx",
                                             "timeouts", "stage q", "sw drops"))
for r in rows:
    s = json.load(open(os.path.join(d, r["label"], "summary.json")))
    timeouts = s.get("nic", {}).get("timeouts", "-")
    print("    %-14s %9s %10s %6s %9s %8s %8s" % (
        r["label"], ("%.2f" % float(r["small_p99"])) if r["small_p99"] else "-",
        r["fidelity_drops"] or "-", r["retx_segments"] or "-", timeouts,
        r["nic_max_stage_queue"] or "-", s["fabric"]["switch_drops"]))
EOF
done

if [ "${orders[0]}" = "${orders[1]}" ] && [ "${orders[1]}" = "${orders[2]}" ]; then
    echo "order by small-flow p99: STABLE across seeds 1, 2, 3: ${orders[0]}"
    exit 0
fi
echo "order by small-flow p99: NOT the same for every seed"
exit 2
