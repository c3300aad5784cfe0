#!/usr/bin/env bash
# presto-compare end to end on a tiny run over three devices: the table prints, comparison.csv
# has the header and one row per device, each run folder has its outputs, the three plots are
# PNG images with an SVG beside each (caption with the run configuration; p99-small with its
# bootstrap intervals); an unknown device is an error (exit 1, valid devices listed, nothing
# written).
# usage: compare-smoke.sh PRESTO_COMPARE_BINARY
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

out=$tmp/compare
"$bin" --simTime=0.001 --devices=host-tcp,presto:1,flextoe --out="$out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
check "exit status 0 (got $rc)" test "$rc" -eq 0
check "table header" grep -Eq '^device +cc +small n +p50 +p99 +medium n' "$tmp/stdout"
for label in host-tcp presto-K1 flextoe; do
    check "table row $label (every row under dctcp)" grep -Eq "^$label +dctcp +[0-9]" "$tmp/stdout"
    check "csv row $label" grep -Eq "^$label,[a-z-]+,dctcp,[0-9]+," "$out/comparison.csv"
    check "run outputs $label" test -s "$out/$label/fct.csv" -a -s "$out/$label/summary.json"
done
check "table order line" grep -Eq '^order by small-flow p99: [a-zK0-9-]+ < [a-zK0-9-]+ < [a-zK0-9-]+$' \
    "$tmp/stdout"
check "csv header" grep -q '^label,device,cc,flows,unfinished,small_count,small_p50,small_p99,' \
    "$out/comparison.csv"
check "csv has 4 lines" test "$(wc -l <"$out/comparison.csv")" -eq 4
for png in slowdown-by-bucket p99-small host-cpu; do
    check "$png.png is a PNG" test "$(head -c 8 "$out/$png.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" \
        = 89504e470d0a1a0a
    check "$png.svg beside it is an SVG" test "$(head -c 5 "$out/$png.svg" 2>/dev/null)" = "<?xml"
    check "$png.svg carries the run configuration" grep -q 'seed 1 | simTime 0.001 s' "$out/$png.svg"
done
check "p99-small.svg draws the bootstrap intervals" grep -q '95% bootstrap interval' \
    "$out/p99-small.svg"
check "no temporary files left" test -z "$(find "$out" -name '*.tmp.*')"

# ablation: every device under dctcp (the table's runs) and rate DCTCP; host-tcp has no rate
# DCTCP, flextoe's native is it, presto's is DCTCP on its pipeline; three pairs split into
# design + cc
abl=$tmp/ablation
"$bin" --simTime=0.002 --devices=host-tcp,presto:1,flextoe --ablation=dctcp,dctcp-rate \
    --out="$abl" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
check "ablation: exit status 0 (got $rc)" test "$rc" -eq 0
check "ablation: csv header" grep -q '^a,b,cc_a,cc_b,total,from_design,from_cc,design_at$' \
    "$abl/ablation.csv"
check "ablation: 3 pairs" test "$(wc -l <"$abl/ablation.csv")" -eq 4
check "ablation: presto and flextoe under their native pipeline and rate DCTCP" \
    grep -q '^presto-K1,flextoe,dctcp-pipeline,dctcp-rate,' "$abl/ablation.csv"
check "ablation: presto's native run" test -s "$abl/ablation/presto-K1-dctcp-pipeline/fct.csv"
check "ablation: runs of the other algorithm" test -s "$abl/ablation/presto-K1-dctcp-rate/fct.csv"
check "ablation: host-tcp has no rate DCTCP run" test ! -e "$abl/ablation/host-tcp-dctcp-rate"
check "ablation: split printed" grep -q 'difference = from design + from cc' "$tmp/stdout"

bad=$tmp/bad
"$bin" --simTime=0.001 --devices=host-tcp,warp-drive --out="$bad" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stderr"
check "unknown device: exit status 1 (got $rc)" test "$rc" -eq 1
check "unknown device: message lists the valid devices" \
    grep -Eq "unknown device 'warp-drive'; valid devices: host-tcp, presto" "$tmp/stderr"
check "unknown device: nothing written" test ! -e "$bad"

# pooled seeds: one run per device and seed, one pooled row per device, the seeds beside it
pool=$tmp/pool
"$bin" --simTime=0.002 --devices=host-tcp,presto:1 --seeds=1,2 --plot=0 --out="$pool" \
    >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
check "seeds: exit status 0 (got $rc)" test "$rc" -eq 0
check "seeds: a run per device and seed" \
    test -s "$pool/host-tcp/seed1/fct.csv" -a -s "$pool/host-tcp/seed2/fct.csv" \
    -a -s "$pool/presto-K1/seed2/summary.json"
check "seeds: one pooled row per device" test "$(wc -l <"$pool/comparison.csv")" -eq 3
check "seeds: one row per device and seed" test "$(wc -l <"$pool/comparison-by-seed.csv")" -eq 5
# seeds and small_p99_by_seed, then switch_ecn_marks, switch_drops, timeouts
check "seeds: the pooled row names its seeds" \
    grep -q ',1;2,[0-9.]*;[0-9.]*,[0-9.]*,[0-9.]*,[0-9.]*$' "$pool/comparison.csv"
check "seeds: the table says what is pooled" grep -q '^pooled over seeds 1, 2' "$tmp/stdout"
# the pooled row holds both seeds' flows
n() { python3 -c "import csv,sys; print(sum(int(r['flows']) for r in csv.DictReader(open(sys.argv[1])) if r['label']==sys.argv[2]))" "$@"; }
check "seeds: pooled flows = the seeds' flows" \
    test "$(n "$pool/comparison.csv" host-tcp)" -eq "$(n "$pool/comparison-by-seed.csv" host-tcp)"
for bad in "--seeds=1,1" "--seeds=1,x" "--seeds=1,,2" "--seeds=2,3 --seed=4" "--seeds=1,2 --workload=rpc" \
    "--seeds=1,2 --ablation=newreno"; do
    # shellcheck disable=SC2086
    "$bin" --simTime=0.001 --devices=host-tcp $bad --out="$tmp/bad-seeds" >/dev/null 2>"$tmp/stderr"
    rc=$?
    check "seeds: $bad refused (exit $rc: $(head -c 120 "$tmp/stderr"))" \
        grep -q 'presto-compare: error: .*--seeds' "$tmp/stderr"
    check "seeds: $bad writes nothing" test ! -e "$tmp/bad-seeds"
done

if [ $fail -ne 0 ]; then
    echo "$fail check(s) failed"
    exit 1
fi
echo "all checks passed"
