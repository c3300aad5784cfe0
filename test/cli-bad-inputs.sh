#!/usr/bin/env bash
# Bad input to presto-spray: a clear message naming the file and line (or the option and the
# valid values), a nonzero exit, and no output directory left behind.
# usage: cli-bad-inputs.sh PRESTO_SPRAY_BINARY SOURCE_DIR
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass=0

# expect_error NAME PATTERN ARGS...: exit status != 0, stderr matches PATTERN, no $tmp/out
expect_error() {
    local name=$1 pattern=$2
    shift 2
    rm -rf "$tmp/out"
    "$bin" --out="$tmp/out" --quiet=1 --plot=0 "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    local rc=$?
    if [ $rc -eq 0 ]; then
        echo "FAIL $name: exit status 0"; fail=$((fail + 1)); return
    fi
    if [ $rc -gt 128 ]; then
        echo "FAIL $name: crashed with signal $((rc - 128))"; fail=$((fail + 1)); return
    fi
    if ! grep -Eq -- "$pattern" "$tmp/stderr"; then
        echo "FAIL $name: message does not match '$pattern':"; cat "$tmp/stderr"
        fail=$((fail + 1)); return
    fi
    if [ -e "$tmp/out" ]; then
        echo "FAIL $name: left $tmp/out behind"; fail=$((fail + 1)); return
    fi
    echo "ok   $name: $(head -c 200 "$tmp/stderr" | tr '\n' ' ')"
    pass=$((pass + 1))
}

printf '0 0\n1000 0.5\n500 0.7\n2000 1\n' >"$tmp/nonmonotone.cdf"
expect_error "non-monotone CDF" "nonmonotone.cdf.*(line )?3" --workload="$tmp/nonmonotone.cdf"
printf '0 0\n1000 1.5\n' >"$tmp/prob.cdf"
expect_error "probability > 1" "prob.cdf.*(line )?2" --workload="$tmp/prob.cdf"
printf '# nothing\n' >"$tmp/empty.cdf"
expect_error "empty CDF" "empty.cdf" --workload="$tmp/empty.cdf"
printf '0 0\n1000 x\n' >"$tmp/garbage.cdf"
expect_error "unparsable CDF" "garbage.cdf.*(line )?2" --workload="$tmp/garbage.cdf"
expect_error "missing CDF" "no-such.cdf" --workload="$tmp/no-such.cdf"
printf '2\n0 1 3 100 1000 0.0\n0 99 3 100 1000 0.1\n' >"$tmp/badhost.txt"
expect_error "flow to a host that does not exist" "badhost.txt.*(line )?3" --flowFile="$tmp/badhost.txt"
printf '3\n0 1 3 100 1000 0.0\n' >"$tmp/short.txt"
expect_error "flow count mismatch" "short.txt" --flowFile="$tmp/short.txt"
printf '1\n0 1 3 100 abc 0.0\n' >"$tmp/nan.txt"
expect_error "unparsable flow size" "nan.txt.*(line )?2" --flowFile="$tmp/nan.txt"
expect_error "unknown device" "host-tcp" --device=quantum
expect_error "unknown load balancer" "ecmp.*spray.*spray-rr.*flowlet" --lb=magic
expect_error "unknown pattern" "all-to-all" --pattern=broadcast
expect_error "load out of range" "load" --load=0
expect_error "bad rate" "hostRate" --hostRate=10Gbpx
expect_error "presto over the stage budget" "stage budget is 12" --device=presto --fidelity=6
expect_error "presto bad fidelity" "0..16 or full" --device=presto --fidelity=many
expect_error "attribute out of its range" "StageBudget=0" --ns3::PrestoNetDevice::StageBudget=0
expect_error "unknown option" "nonsense" --nonsense=1
expect_error "rpc: no connections" "rpcConnections=0" --workload=rpc --rpcConnections=0
expect_error "rpc: bad request size" "rpcRequest=lots" --workload=rpc --rpcRequest=lots
expect_error "rpc: zero response size" "rpcResponse=0" --workload=rpc --rpcResponse=0
expect_error "rpc: too many outstanding" "rpcOutstanding=5000" --workload=rpc --rpcOutstanding=5000
expect_error "unknown congestion control" "dctcp, dctcp-rate, dctcp-rate-tas, newreno, native" --cc=cubic
expect_error "host-tcp has no rate-based DCTCP" "not available for host-tcp" --cc=dctcp-rate
expect_error "--cc and the attribute disagree" "disagree" --device=presto --cc=dctcp --ns3::OffloadNetDevice::CongestionControl=ns3::OffloadNewRenoCongestion
expect_error "congestion control attribute of the wrong kind" "not a subclass of ns3::OffloadCongestionControl" --device=flextoe --ns3::OffloadNetDevice::CongestionControl=ns3::TcpDctcp
expect_error "bad congestion-control parameter" "RateClamp|rate clamp" --device=flextoe --cc=dctcp-rate --ns3::OffloadDctcpRateCongestion::RateClamp=0.5
expect_error "--fidelity and the attribute disagree" "disagree" --device=presto --fidelity=2 --ns3::PrestoNetDevice::ReassemblyFidelity=0
expect_error "TxQueuePackets above the device queue" "TxQueuePackets=200 exceeds the device queue of 100" --device=presto --ns3::OffloadNetDevice::TxQueuePackets=200
printf '10 1 dport=99999\n' >"$tmp/rules.txt"
expect_error "presto bad classifier rule" "rules.txt.*(line )?1" --device=presto --fidelity=1,0 --classRules="$tmp/rules.txt"
expect_error "cora unknown strategy" "coraStrategy.*cora, state, flow|cora.*state.*flow" --device=cora --coraStrategy=greedy
expect_error "cora unknown profile" "Profile=pensando" --device=cora --ns3::CoraNetDevice::Profile=pensando
printf 'program broken\nelement T key=flow entries=10 entry_bytes=8 instructions=5 access=DRAM/read/bulk/4:1\nbranch tcp stateless=1 T\n' >"$tmp/broken.cora"
expect_error "cora malformed program file" "broken.cora:2" --device=cora --ns3::CoraNetDevice::Program="$tmp/broken.cora"
printf 'program other\nelement T key=flow entries=10 entry_bytes=8 instructions=5\nbranch http stateless=1 T\n' >"$tmp/nottcp.cora"
expect_error "cora program without a tcp branch" "branch named tcp" --device=cora --ns3::CoraNetDevice::Program="$tmp/nottcp.cora"
expect_error "cora thresholds inverted" "UnderloadThreshold" --device=cora --ns3::CoraNetDevice::UnderloadThreshold=0.95

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
