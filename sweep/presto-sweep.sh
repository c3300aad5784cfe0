#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Sweep runner for presto-spray: load x device x fidelity x interval policy x load balancer
# x seed.
#
#   sweep/presto-sweep.sh --out DIR --loads 0.3,0.5 --devices host-tcp,presto,flextoe \
#       --fidelities 0,1,full [--intervals ArrivalOrder,PerPath] --lbs spray,ecmp \
#       --seeds 1,2,3 [--jobs N] [--sshloginfile F] \
#       [--runner auto|parallel|xargs] [--list-only] [--bin build/presto-spray] \
#       [-- extra presto-spray options]
#   sweep/presto-sweep.sh --run-one LINE_NO DIR      (one run; used by the sweep and Slurm)
#
# One folder per run, DIR/runs/device=presto,fidelity=1,lb=spray,load=0.5,seed=2/, holding
# config.txt (the exact command), stdout.txt, stderr.txt and presto-spray's outputs. A run
# works in NAME.partial and is renamed to NAME only when presto-spray succeeded, so a sweep
# that is interrupted and started again skips every finished run and redoes the others.
# DIR/runs.txt lists the runs, one per line: "NAME COMMAND...". See sweep/README.md.
set -u

self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
repo=$(cd "$(dirname "$self")/.." && pwd)

usage() {
    sed -n '4,12p' "$self" | sed 's/^# \{0,1\}//'
}

# Bad options: message and exit 2.
die_usage() {
    echo "presto-sweep: error: $*" >&2
    echo "run 'sweep/presto-sweep.sh --help' for the options" >&2
    exit 2
}

# The absolute form of a path (it need not exist yet).
absolute() {
    case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PWD/$1" ;;
    esac
}

# ------------------------------------------------------------------ one run
# run_one LINE_NO DIR: run line LINE_NO of DIR/runs.txt unless it already finished.
run_one() {
    local lineno=$1 dir=$2 line name
    case "$lineno" in
    '' | *[!0-9]*) die_usage "--run-one: line number '$lineno' is not a positive integer" ;;
    esac
    [ -f "$dir/runs.txt" ] || die_usage "--run-one: '$dir/runs.txt' does not exist"
    line=$(sed -n "${lineno}p" "$dir/runs.txt")
    [ -n "$line" ] || die_usage "--run-one: '$dir/runs.txt' has no line $lineno"
    name=${line%% *}
    local cmdline=${line#* }
    local final="$dir/runs/$name" partial="$dir/runs/$name.partial"
    if [ -f "$final/summary.json" ]; then
        # finished earlier; a different command under the same name is a stale result
        if ! grep -qxF "command: $cmdline" "$final/config.txt" 2>/dev/null; then
            echo "presto-sweep: error: run $name finished earlier with a different command" \
                "(see $final/config.txt); remove it or use another --out" >&2
            return 1
        fi
        echo "presto-sweep: skip $name (finished)"
        return 0
    fi
    # a leftover of an interrupted attempt: start from scratch
    rm -rf "$partial" "$final"
    mkdir -p "$partial" || return 1
    printf '%s %s pid %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)" "$$" \
        >>"$dir/runs/$name.starts"
    local -a argv
    eval "argv=($cmdline)" # runs.txt holds shell-quoted words (printf %q)
    {
        echo "command: $cmdline"
        echo "run: $name (line $lineno of $dir/runs.txt)"
        echo "executed: ${argv[*]} --out=$partial (then renamed to $final)"
        echo "host: $(hostname)"
        echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "options:"
        printf '  %s\n' "${argv[@]:1}"
    } >"$partial/config.txt"
    echo "presto-sweep: start $name"
    if "${argv[@]}" --out="$partial" >"$partial/stdout.txt" 2>"$partial/stderr.txt" &&
        [ -f "$partial/summary.json" ]; then
        echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$partial/config.txt"
        # rename(2) is atomic: NAME exists only for finished runs
        mv -T "$partial" "$final" || return 1
        echo "presto-sweep: done  $name"
        return 0
    fi
    echo "presto-sweep: FAILED $name (log: $partial/stderr.txt)" >&2
    tail -n 5 "$partial/stderr.txt" | sed 's/^/  /' >&2
    return 1
}

if [ "${1:-}" = "--run-one" ]; then
    [ $# -eq 3 ] || die_usage "usage: presto-sweep.sh --run-one LINE_NO DIR"
    run_one "$2" "$(absolute "$3")"
    exit $?
fi

# ------------------------------------------------------------------ options
out="" loads="" devices="" fidelities="1" intervals="" lbs="spray" seeds="1" jobs=""
sshloginfile="" runner="auto" list_only=0 bin="$repo/build/presto-spray"
extra=()
while [ $# -gt 0 ]; do
    opt=$1
    case "$opt" in
    -h | --help)
        usage
        exit 0
        ;;
    --list-only)
        list_only=1
        shift
        continue
        ;;
    --)
        shift
        extra=("$@")
        break
        ;;
    --*=*)
        val=${opt#*=}
        opt=${opt%%=*}
        shift
        ;;
    --*)
        [ $# -ge 2 ] || die_usage "option $opt needs a value"
        val=$2
        shift 2
        ;;
    *) die_usage "unexpected argument '$opt' (extra presto-spray options go after '--')" ;;
    esac
    case "$opt" in
    --out) out=$val ;;
    --loads) loads=$val ;;
    --devices) devices=$val ;;
    --fidelities) fidelities=$val ;;
    --intervals) intervals=$val ;;
    --lbs) lbs=$val ;;
    --seeds) seeds=$val ;;
    --jobs) jobs=$val ;;
    --sshloginfile) sshloginfile=$val ;;
    --runner) runner=$val ;;
    --bin) bin=$val ;;
    *) die_usage "unknown option '$opt'" ;;
    esac
done

[ -n "$out" ] || die_usage "--out DIR is required"
[ -n "$loads" ] || die_usage "--loads is required (e.g. --loads 0.3,0.5)"
[ -n "$devices" ] || die_usage "--devices is required (e.g. --devices host-tcp,presto)"

# split_list OPTION VALUE REGEX: the comma-separated items, each checked against REGEX.
split_list() {
    local option=$1 value=$2 regex=$3 item
    case "$value" in
    ,* | *, | *,,*) die_usage "$option '$value': empty item" ;;
    esac
    IFS=, read -r -a items <<<"$value"
    for item in "${items[@]}"; do
        [[ $item =~ $regex ]] || die_usage "$option: '$item' is not valid (expected $4)"
    done
}
split_list --loads "$loads" '^(0(\.[0-9]+)?|1(\.0*)?|\.[0-9]+)$' "a number in (0,1]"
load_list=("${items[@]}")
split_list --devices "$devices" '^[A-Za-z0-9_-]+$' "a device name"
device_list=("${items[@]}")
split_list --fidelities "$fidelities" '^([0-9]+|full)$' "0..16 or full"
fidelity_list=("${items[@]}")
interval_list=("")
if [ -n "$intervals" ]; then
    split_list --intervals "$intervals" '^(ArrivalOrder|PerPath)$' "ArrivalOrder or PerPath"
    interval_list=("${items[@]}")
fi
split_list --lbs "$lbs" '^[A-Za-z0-9_-]+$' "a load balancer name"
lb_list=("${items[@]}")
split_list --seeds "$seeds" '^[0-9]+$' "a run number"
seed_list=("${items[@]}")
if [ -z "$jobs" ]; then
    jobs=$(nproc 2>/dev/null || echo 1)
fi
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs '$jobs' is not a positive integer"
case "$runner" in auto | parallel | xargs) ;; *) die_usage "--runner '$runner': use auto, parallel or xargs" ;; esac
if [ -n "$sshloginfile" ]; then
    [ -r "$sshloginfile" ] || die_usage "--sshloginfile '$sshloginfile' cannot be read"
    sshloginfile=$(absolute "$sshloginfile")
    [ "$runner" != xargs ] || die_usage "--sshloginfile needs GNU parallel (not --runner xargs)"
fi
for v in "${load_list[@]}"; do
    awk -v v="$v" 'BEGIN { exit !(v > 0 && v <= 1) }' || die_usage "--loads: '$v' is not in (0,1]"
done
bin=$(absolute "$bin")
[ -x "$bin" ] || die_usage "--bin '$bin' is not an executable (build first: ./presto.sh build, or give --bin)"
# Check device names against the ones presto-spray accepts (its --device help lists them).
known=$("$bin" --PrintHelp 2>/dev/null | sed -n 's/.*--device:.*: \([A-Za-z0-9:, -]*\) \[.*/\1/p' | head -n 1)
[ -n "$known" ] || die_usage "cannot read the device names from $bin --PrintHelp"
for d in "${device_list[@]}"; do
    [[ ", $known," == *", $d,"* ]] || die_usage "--devices: '$d' is not a device of $bin (valid: $known)"
done

out=$(absolute "$out")
mkdir -p "$out/runs" || die_usage "--out '$out' cannot be created"

# ------------------------------------------------------------------ the grid
# Fidelity applies to presto only; other devices get one run per point without it.
tmp_list="$out/runs.txt.tmp.$$"
: >"$tmp_list"
for device in "${device_list[@]}"; do
    fids=("${fidelity_list[@]}")
    pols=("${interval_list[@]}")
    [ "$device" = presto ] || fids=("")
    [ "$device" = presto ] || pols=("")
    for fid in "${fids[@]}"; do
      for pol in "${pols[@]}"; do
        for lb in "${lb_list[@]}"; do
            for load in "${load_list[@]}"; do
                for seed in "${seed_list[@]}"; do
                    name="device=$device"
                    args=(--device="$device")
                    if [ -n "$fid" ]; then
                        name+=",fidelity=$fid"
                        args+=(--fidelity="$fid")
                    fi
                    if [ -n "$pol" ]; then
                        name+=",intervals=$pol"
                        args+=(--intervals="$pol")
                    fi
                    name+=",lb=$lb,load=$load,seed=$seed"
                    args+=(--lb="$lb" --load="$load" --seed="$seed" --quiet=1)
                    # a design option goes to the runs whose design has it (as --fidelity)
                    for e in "${extra[@]}"; do
                        case "$e" in
                            --coraStrategy=*) [ "$device" = cora ] || continue ;;
                            --classRules=* | --intervals=*) [ "$device" = presto ] || continue ;;
                        esac
                        args+=("$e")
                    done
                    {
                        printf '%s' "$name"
                        printf ' %q' "$bin" "${args[@]}"
                        printf '\n'
                    } >>"$tmp_list"
                done
            done
        done
      done
    done
done
mv -f "$tmp_list" "$out/runs.txt"
total=$(wc -l <"$out/runs.txt")

if [ "$list_only" = 1 ]; then
    cat "$out/runs.txt"
    echo "presto-sweep: $total runs listed in $out/runs.txt" >&2
    exit 0
fi

# ------------------------------------------------------------------ run them
if [ "$runner" = auto ]; then
    # moreutils also ships a "parallel": only GNU parallel is used
    if parallel --version 2>/dev/null | grep -q 'GNU parallel'; then runner="parallel"; else runner="xargs"; fi
fi
if [ "$runner" = parallel ] && ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
    die_usage "--runner parallel: GNU parallel is not installed"
fi
echo "presto-sweep: $total runs in $out (runner $runner, $jobs jobs)"
if [ "$runner" = parallel ]; then
    popts=(--will-cite --jobs "$jobs" --line-buffer)
    [ -z "$sshloginfile" ] || popts+=(--sshloginfile "$sshloginfile")
    seq 1 "$total" | parallel "${popts[@]}" "$(printf '%q' "$self")" --run-one {} "$(printf '%q' "$out")"
else
    seq 1 "$total" | xargs -P "$jobs" -I{} "$self" --run-one {} "$out"
fi
runner_status=$?

# A run counts only if it is final and was made by this very command.
failed=()
while read -r name cmdline; do
    [ -f "$out/runs/$name/summary.json" ] &&
        grep -qxF "command: $cmdline" "$out/runs/$name/config.txt" 2>/dev/null ||
        failed+=("$name")
done <"$out/runs.txt"
if [ ${#failed[@]} -gt 0 ] || [ "$runner_status" -ne 0 ]; then
    echo "presto-sweep: ${#failed[@]} of $total runs did not finish (runner exit status" \
        "$runner_status):" >&2
    printf '  %s\n' "${failed[@]}" >&2
    echo "start the same command again to redo them (after fixing the errors above)" >&2
    exit 1
fi
echo "presto-sweep: all $total runs finished; aggregate with:" \
    "$repo/build/presto-aggregate --in=$out"
exit 0
