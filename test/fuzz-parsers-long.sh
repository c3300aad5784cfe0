#!/usr/bin/env bash
# The long parser fuzz run for issue 13's closing note: COUNT mutated inputs per parser (CDF,
# HPCC flow file, Cora program, classifier rules), each parser in its own process so that a
# crash or a hang is counted instead of ending the run. Prints one table row per parser.
# usage: fuzz-parsers-long.sh PRESTO_UNIT_TESTS DATA_DIR [COUNT] [SEED]
# (the ctest entry parser-fuzz runs the same tests with 4,000 inputs per parser)
set -u
bin=$1
data=$2
count=${3:-10000}
seed=${4:-1}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%-10s %8s %10s %10s %9s %10s %8s %6s %9s\n' parser inputs rejected "file-only" accepted \
    "refused*" crashes hangs "slowest"
for test in Cdf FlowFile CoraProgram ClassifierRules; do
    start=$(date +%s)
    PRESTO_DATA_DIR=$data PRESTO_FUZZ_COUNT=$count PRESTO_FUZZ_SEED=$seed \
        timeout 3600 "$bin" --gtest_filter="ParserFuzz.$test" >"$log" 2>&1
    rc=$?
    line=$(grep '^fuzz: ' "$log" | tail -1)
    field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$line"; }
    if [ -z "$line" ]; then
        # the process died before its summary: a crash (signal) or a hang (watchdog, timeout)
        crashes=1
        hangs=0
        if [ $rc -eq 3 ] || [ $rc -eq 124 ]; then crashes=0; hangs=1; fi
        printf '%-10s %8s %10s %10s %9s %10s %8s %6s %9s\n' "$test" "?" "?" "?" "?" "?" \
            "$crashes" "$hangs" "-"
        tail -20 "$log"
        status=1
        continue
    fi
    parser=$(sed -n 's/.*parser=\([a-z-]*\).*/\1/p' <<<"$line")
    fileonly=$(sed -n 's/.*(file only \([0-9]*\)).*/\1/p' <<<"$line")
    refused=$(sed -n 's/.*(refused in use \([0-9]*\)).*/\1/p' <<<"$line")
    printf '%-10s %8s %10s %10s %9s %10s %8s %6s %7s ms  (%ss)\n' "$parser" "$(field inputs)" \
        "$(field rejected)" "$fileonly" "$(field accepted)" "$refused" "$(field failures)" \
        "$(field hangs)" "$(field slowest)" "$(($(date +%s) - start))"
    if [ $rc -ne 0 ]; then
        grep -E 'input [0-9]+ \(saved' "$log" | head -5
        status=1
    fi
done
echo "rejected: clean PrestoInputError naming the file and line (file-only: a whole-program"
echo "error of a Cora file, naming the file); refused*: accepted by the parser, then refused"
echo "cleanly by the model using it; crashes: any other exception, signal or std::bad_alloc"
echo "beyond a 2 GiB margin; hangs: an input over 2 s. seed $seed"
exit $status
