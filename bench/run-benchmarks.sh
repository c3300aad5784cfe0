#!/usr/bin/env bash
# Speed benchmarks (not tests: the figures depend on the machine). Each comparison runs its
# baseline in the same invocation, so ratios are meaningful on a noisy machine.
#
#  1. The reference scenario of the foundation issue: 32 hosts (4 leaves x 8 hosts, 4 spines),
#     10G hosts, 40G core, 1 us links, per-packet spraying, WebSearch at 50% load, host TCP:
#     on the module's fabric and on ns-3's own IPv4 routers (Ipv4GlobalRouting with
#     RandomEcmpRouting). Prints packet-hops per wall second and the ratio.
#  2. The switch path alone (fabric-benchmark): a trivial packet source, no TCP.
#
# usage: bench/run-benchmarks.sh BUILD_DIR [simTime_s]
set -euo pipefail
build=${1:-build}
sim=${2:-0.02}
out=${PRESTO_BENCH_OUT:-bench/out}
mkdir -p "$out"

ref=(--leaves=4 --hostsPerLeaf=8 --spines=4 --hostRate=10Gbps --coreRate=40Gbps
     --linkDelay=1us --lb=spray --workload=websearch --load=0.5 --simTime="$sim"
     --quiet=1 --plot=0)

hops_per_s() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["speed"]["packet_hops_per_s"])' "$1"; }

echo "== reference scenario, host-tcp, simTime=$sim s"
"$build/presto-spray" "${ref[@]}" --fabric=presto --out="$out/ref-presto-fabric"
"$build/presto-spray" "${ref[@]}" --fabric=ns3-routers --out="$out/ref-ns3-routers"
python3 - "$out/ref-presto-fabric/summary.json" "$out/ref-ns3-routers/summary.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for name, s in (("presto fabric", a), ("ns-3 routers ", b)):
    sp = s["speed"]
    print(f"{name}: {sp['packet_hops_per_s']:>12,.0f} packet-hops/s "
          f"({sp['packet_hops']:,} hops, {sp['wall_s']:.2f} s wall, {sp['events']:,} events, "
          f"{sp['peak_rss_kb']/1024:.0f} MB peak)")
print(f"ratio (presto fabric / ns-3 routers): "
      f"{a['speed']['packet_hops_per_s'] / b['speed']['packet_hops_per_s']:.2f}")
PY

echo "== switch path alone (trivial source, no TCP)"
"$build/fabric-benchmark"
