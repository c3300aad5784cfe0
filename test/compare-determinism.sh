#!/usr/bin/env bash
# Same seed -> byte-identical outputs, bootstrap tiers included: presto-compare run twice with
# seed 3 over three devices (with incast bursts and queue traces, so their files are covered
# too) writes byte-identical comparison.csv (with the 95% bootstrap interval columns),
# incast.csv, and per run fct.csv, flows.txt, incast.csv, queues.csv, switch-events.csv and
# summary.json without its wall-clock "speed" and its "command_line" (the runs' --out differ);
# it prints the same table, order and tiers.
# Seed 4 draws other intervals. ns-3's event queue and simulator implementation change no
# output: seed 3 again with --SchedulerType=ns3::MapScheduler and
# --SimulatorImplementationType=ns3::DefaultSimulatorImpl (ns-3's defaults; the module's
# programs choose ns3::TimingWheelScheduler and ns3::LeanSimulatorImpl when the user names
# none) writes the same files. About 15 s.
# usage: compare-determinism.sh PRESTO_COMPARE_BINARY
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check NAME COMMAND...: run the command, count the result
    local name=$1
    shift
    if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=$((fail + 1)); fi
}
run() { # run NAME SEED [DEVICES [OPTION...]]
    local name=$1 seed=$2 devices=${3:-host-tcp,presto:1,flextoe}
    shift $(($# < 3 ? $# : 3))
    "$bin" --simTime=0.01 --devices="$devices" --seed="$seed" --bursts=poisson "$@" \
        --burstInterval=0.002 --queueTrace=0.0001 --plot=false --out="$tmp/$name" \
        >"$tmp/$name.stdout" 2>"$tmp/$name.stderr"
    echo "run $name (seed $seed): exit status $?"
    # the table without the progress lines (wall-clock seconds) and the outputs line (the path)
    grep -v -e '^  \[' -e '^outputs: ' "$tmp/$name.stdout" >"$tmp/$name.table"
}
strip_speed() { # summary.json without "speed" and "command_line" (--out differs between runs)
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("speed",None); d.pop("command_line",None); print(json.dumps(d,sort_keys=True))' "$1"
}
run a 3
run b 3
run c 4
run d 3 host-tcp,presto:1,flextoe --SchedulerType=ns3::MapScheduler \
    --SimulatorImplementationType=ns3::DefaultSimulatorImpl
cat "$tmp/a.table"
check "tiers line printed" grep -q '^tiers (~: 95% bootstrap intervals of p99 overlap): ' "$tmp/a.table"
check "same table, order and tiers" cmp "$tmp/a.table" "$tmp/b.table"
check "comparison.csv identical" cmp "$tmp/a/comparison.csv" "$tmp/b/comparison.csv"
check "comparison.csv has the interval columns" \
    grep -q ',small_p99_ci95_low,small_p99_ci95_high,' "$tmp/a/comparison.csv"
check "incast.csv identical" cmp "$tmp/a/incast.csv" "$tmp/b/incast.csv"
same_runs() { # same_runs PREFIX A B: every device's outputs of runs A and B are identical
    local label f
    for label in host-tcp presto-K1 flextoe; do
        for f in fct.csv flows.txt incast.csv queues.csv switch-events.csv; do
            check "$1$label/$f identical" cmp "$tmp/$2/$label/$f" "$tmp/$3/$label/$f"
        done
        check "$1$label/summary.json identical but for speed" \
            test "$(strip_speed "$tmp/$2/$label/summary.json")" = "$(strip_speed "$tmp/$3/$label/summary.json")"
    done
}
same_runs "" a b
speed() { python3 -c 'import json,sys; print(json.load(open(sys.argv[2]))["speed"][sys.argv[1]])' "$@"; }
check "default event queue: TimingWheelScheduler" \
    test "$(speed scheduler "$tmp/a/presto-K1/summary.json")" = ns3::TimingWheelScheduler
check "default simulator: LeanSimulatorImpl" \
    test "$(speed simulator "$tmp/a/presto-K1/summary.json")" = ns3::LeanSimulatorImpl
check "--SchedulerType is the user's" \
    test "$(speed scheduler "$tmp/d/presto-K1/summary.json")" = ns3::MapScheduler
check "--SimulatorImplementationType is the user's" \
    test "$(speed simulator "$tmp/d/presto-K1/summary.json")" = ns3::DefaultSimulatorImpl
check "ns-3 defaults: comparison.csv identical" cmp "$tmp/a/comparison.csv" "$tmp/d/comparison.csv"
same_runs "ns-3 defaults: " a d
# another seed: another workload, other intervals
check "seed 4: other flows" bash -c "! cmp -s '$tmp/a/host-tcp/flows.txt' '$tmp/c/host-tcp/flows.txt'"
check "seed 4: other intervals" bash -c \
    "! cmp -s <(cut -d, -f28- '$tmp/a/comparison.csv') <(cut -d, -f28- '$tmp/c/comparison.csv')"
echo "$fail failed"
[ "$fail" -eq 0 ]
