#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A sweep interrupted midway and started again finishes without redoing finished runs.
#
#   bash test/sweep-resume.sh BIN_DIR SRC_DIR
#
# BIN_DIR holds presto-spray and presto-aggregate, SRC_DIR is the repository. Runs a tiny
# sweep (2 loads x 1 device x 2 seeds, 1 ms of arrivals) with 2 jobs in its own process group,
# kills the whole group as soon as the first run is final, starts the same command again and
# checks: the runs finished before the kill were skipped (one start each, summary.json
# unchanged), every other run was started and finished exactly once in the second sweep, no
# .partial folder is left, every summary is there; then presto-aggregate writes a CSV with
# 2-seed intervals and a PNG. Exit status 0 on success, 1 with a FAIL line otherwise. The
# sweep uses xargs (no GNU parallel needed); SWEEP_TEST_RUNNER=parallel tests GNU parallel.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 BIN_DIR SRC_DIR" >&2
    exit 2
fi
bin_dir=$(cd "$1" && pwd) || exit 1
src=$(cd "$2" && pwd) || exit 1
work=$(mktemp -d /tmp/presto-sweep-resume-XXXXXX) || exit 1
pgid=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
    [ -z "$pgid" ] || kill -KILL -- "-$pgid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    for log in "$work"/*.log; do
        [ -f "$log" ] && { echo "--- $log" >&2; cat "$log" >&2; }
    done
    exit 1
}

out="$work/sweep"
sweep=("$src/sweep/presto-sweep.sh" --out "$out" --loads "0.3,0.5" --devices host-tcp
    --lbs spray --seeds "1,2" --jobs 2 --runner "${SWEEP_TEST_RUNNER:-xargs}"
    --bin "$bin_dir/presto-spray" -- --simTime=0.001 --plot=0)
names=()
for load in 0.3 0.5; do
    for seed in 1 2; do
        names+=("device=host-tcp,lb=spray,load=$load,seed=$seed")
    done
done

# Bad options are refused with exit status 2 and a message, before anything is written.
"$src/sweep/presto-sweep.sh" --out "$work/bad" --loads 0.5 --devices host-tcp --jobs 0 \
    --bin "$bin_dir/presto-spray" 2>"$work/bad.err"
[ $? -eq 2 ] || fail "--jobs 0 did not exit with status 2"
grep -q -- "--jobs" "$work/bad.err" || fail "--jobs 0: message does not name the option"
[ ! -e "$work/bad" ] || fail "--jobs 0 created the output folder"

# 1. Start the sweep in a process group of its own; kill the group when the first run is final.
setsid "${sweep[@]}" >"$work/first.log" 2>&1 &
pgid=$!
finished_before=()
for _ in $(seq 1 800); do # at most 40 s
    for n in "${names[@]}"; do
        [ -f "$out/runs/$n/summary.json" ] && finished_before+=("$n")
    done
    [ ${#finished_before[@]} -gt 0 ] && break
    kill -0 "$pgid" 2>/dev/null || fail "the sweep ended before any run finished"
    sleep 0.05
done
[ ${#finished_before[@]} -gt 0 ] || fail "no run finished within 40 s"
kill -TERM -- "-$pgid" 2>/dev/null
wait "$pgid" 2>/dev/null
for _ in $(seq 1 100); do
    kill -0 -- "-$pgid" 2>/dev/null || break
    sleep 0.05
done
kill -0 -- "-$pgid" 2>/dev/null && fail "processes of the killed sweep are still running"
pgid=""

# What was final after the kill (a run may have finished between the poll and the kill).
finished_before=()
declare -A digest
for n in "${names[@]}"; do
    if [ -f "$out/runs/$n/summary.json" ]; then
        finished_before+=("$n")
        digest[$n]="$(md5sum <"$out/runs/$n/summary.json") $(stat -c %Y.%y "$out/runs/$n/summary.json")"
    fi
done
interrupted=$((${#names[@]} - ${#finished_before[@]}))
[ "$interrupted" -gt 0 ] || fail "all runs finished before the kill: the sweep was not interrupted"
partials=$(find "$out/runs" -maxdepth 1 -name '*.partial' | wc -l)
echo "killed after ${#finished_before[@]} finished runs; $interrupted not final," \
    "$partials .partial folders left"

# 2. Start the same command again: it must finish the rest and skip the finished ones.
sleep 1.1 # a rewritten summary.json would get a different mtime
"${sweep[@]}" >"$work/second.log" 2>&1 || fail "the restarted sweep failed"
for n in "${names[@]}"; do
    [ -f "$out/runs/$n/summary.json" ] || fail "run $n has no summary.json after the restart"
    [ -f "$out/runs/$n/config.txt" ] || fail "run $n has no config.txt"
    grep -qF -- "--seed=${n##*seed=}" "$out/runs/$n/config.txt" ||
        fail "config.txt of $n does not hold its command"
done
left=$(find "$out/runs" -maxdepth 1 -name '*.partial' | wc -l)
[ "$left" -eq 0 ] || fail "$left .partial folders are left after the restart"
for n in "${finished_before[@]}"; do
    starts=$(wc -l <"$out/runs/$n.starts")
    [ "$starts" -eq 1 ] || fail "finished run $n was started $starts times"
    grep -qxF "presto-sweep: skip $n (finished)" "$work/second.log" ||
        fail "the restart did not skip finished run $n"
    now="$(md5sum <"$out/runs/$n/summary.json") $(stat -c %Y.%y "$out/runs/$n/summary.json")"
    [ "$now" = "${digest[$n]}" ] || fail "summary.json of finished run $n was rewritten"
done
for n in "${names[@]}"; do
    [[ " ${finished_before[*]} " == *" $n "* ]] && continue
    s=$(grep -cxF "presto-sweep: start $n" "$work/second.log")
    d=$(grep -cxF "presto-sweep: done  $n" "$work/second.log")
    if [ "$s" -ne 1 ] || [ "$d" -ne 1 ]; then
        fail "unfinished run $n: started $s and finished $d times by the restart (expected 1, 1)"
    fi
done
echo "restart: ${#finished_before[@]} runs skipped, $interrupted redone, all ${#names[@]} final"

# 3. Aggregate: CSV with 2-seed intervals and a PNG.
"$bin_dir/presto-aggregate" --in="$out" >"$work/aggregate.log" 2>&1 || fail "presto-aggregate failed"
csv="$out/aggregate/aggregate.csv"
png="$out/aggregate/slowdown_p99.png"
[ -f "$csv" ] || fail "no $csv"
head -n 1 "$csv" | grep -qx 'group,bucket,lo_bytes,hi_bytes,metric,n,mean,ci95_low,ci95_high,load' ||
    fail "aggregate.csv has the wrong header (expected the swept parameter load as a column)"
for load in 0.3 0.5; do
    grep -Eq "^load=$load,all,,,slowdown_mean,2,[0-9.e+-]+,[0-9.e+-]+,[0-9.e+-]+,$load\$" "$csv" ||
        fail "aggregate.csv has no 2-seed interval of slowdown_mean for load=$load"
done
[ "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "$png is not a PNG"
echo "PASS: sweep resumed without redoing finished runs; aggregate.csv and PNG written"
exit 0
