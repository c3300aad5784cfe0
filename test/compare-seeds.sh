#!/usr/bin/env bash
# Seed stability of the headline comparison: run presto-compare for seeds 1, 2, 3 and report,
# per seed, the devices ordered by small-flow p99 slowdown together with the counters that
# explain the order (fidelity drops, retransmitted segments, timeouts, the busiest FlexTOE
# stage's queue); then whether the orders agree. Devices whose 95% bootstrap intervals of the
# p99 overlap form a tier ("a ~ b"); the orders are stable when no two devices are
# distinguishably ordered one way in one seed and distinguishably the other way in another.
# A pair whose order changes with the seed is one group (its order is not a claim the runs
# support).
# Exit status 0 when stable, 2 when not, 1 on a failed run.
# usage: compare-seeds.sh PRESTO_COMPARE_BINARY [OUT_DIR] [extra presto-compare options...]
# (default OUT_DIR: a temporary directory, removed at the end; simTime 0.2 s unless given: at
# presto-compare's default 0.1 s there are too few small flows for a stable p99)
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
    # --hostParity=0: host-tcp's stock egress, as before parity existed; with parity its run
    # takes twice as long and CI's 40 minutes do not hold it (pooled seeds: README)
    if ! "$bin" --seed=$seed --plot=0 --out="$out/seed$seed" --simTime=0.2 --hostParity=0 "$@" >"$out/seed$seed.log" 2>&1; then
        echo "seed $seed: presto-compare failed:"
        cat "$out/seed$seed.log"
        exit 1
    fi
    order=$(sed -n 's/^tiers (~: 95% bootstrap intervals of p99 overlap): //p' "$out/seed$seed.log")
    orders+=("$order")
    echo "seed $seed ($(($(date +%s) - start)) s): $order"
    # label, small p99, fidelity drops, retx segments, timeouts, FlexTOE stage queue, NIC drops
    python3 - "$out/seed$seed" <<'EOF'
import csv, json, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "comparison.csv"))))
rows.sort(key=lambda r: float(r["small_p99"]) if r["small_p99"] else float("inf"))
print("    %-14s %9s %10s %6s %9s %8s %8s %9s %9s" % (
    "device", "small p99", "fid.drops", "retx", "timeouts", "stage q", "sw drops", "ecn marks",
    "large p50"))
for r in rows:
    s = json.load(open(os.path.join(d, r["label"], "summary.json")))
    timeouts = s.get("nic", {}).get("timeouts", "-")
    print("    %-14s %9s %10s %6s %9s %8s %8s %9s %9s" % (
        r["label"], ("%.2f" % float(r["small_p99"])) if r["small_p99"] else "-",
        r["fidelity_drops"] or "-", r["retx_segments"] or "-", timeouts,
        r["nic_max_stage_queue"] or "-", s["fabric"]["switch_drops"],
        s["fabric"]["switch_ecn_marks"], ("%.2f" % float(r["large_p50"])) if r["large_p50"] else "-"))
EOF
done

python3 - "$out" <<'EOF'
# Every pair of devices must either keep its order in every seed, or never be distinguishably
# ordered both ways (95% bootstrap intervals of the small-flow p99). Pairs whose order changes
# merge into groups; the groups' order is the comparison's stable claim.
import csv, itertools, os, sys
seeds = []
for seed in (1, 2, 3):
    rows = csv.DictReader(open(os.path.join(sys.argv[1], "seed%d" % seed, "comparison.csv")))
    seeds.append({r["label"]: (float(r["small_p99"]), float(r["small_p99_ci95_low"]),
                               float(r["small_p99_ci95_high"])) for r in rows if r["small_p99"]})
names = sorted(set.intersection(*(set(s) for s in seeds)))
group = {n: n for n in names}
def find(n):
    while group[n] != n:
        n = group[n]
    return n
bad = []
for a, b in itertools.combinations(names, 2):
    order = {(s[a][0] > s[b][0]) - (s[a][0] < s[b][0]) for s in seeds}
    if len(order) == 1 and 0 not in order:
        continue  # same order in every seed
    # The order changes with the seed. That contradicts the comparison only if a is
    # distinguishably better in one seed and b distinguishably better in another; a swap
    # within overlapping intervals is a tie, and the pair can only be claimed as one group.
    a_better = any(s[a][2] < s[b][1] for s in seeds)
    b_better = any(s[b][2] < s[a][1] for s in seeds)
    if a_better and b_better:
        bad.append("%s vs %s" % (a, b))
    group[find(a)] = find(b)
groups = {}
for n in names:
    groups.setdefault(find(n), []).append(n)
mean = lambda g: sum(s[n][0] for s in seeds for n in g) / (len(g) * len(seeds))
ordered = sorted(groups.values(), key=mean)
print("groups by small-flow p99 over seeds 1-3: " +
      " < ".join("{" + ", ".join(sorted(g, key=lambda n: names.index(n))) + "}" for g in ordered))
if bad:
    print("order by small-flow p99: UNSTABLE: distinguishable in both directions: " +
          ", ".join(bad))
    sys.exit(2)
if len(ordered) < 2:
    print("order by small-flow p99: no device separates from the others (one group)")
    sys.exit(2)
print("order by small-flow p99: STABLE across seeds 1, 2, 3 (%d groups)" % len(ordered))
EOF
