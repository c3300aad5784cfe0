#!/usr/bin/env bash
# The run outputs describe themselves and their flows (issue 36):
# - summary.json records every --ns3::Type::Attribute=value given (also one equal to its
#   default), the command line as typed and the module version;
# - fct.csv has each flow's addresses, ports, retransmitted bytes and timeouts, for ns-3's TCP
#   and for an offload design (presto), with a loss rate that makes senders retransmit;
# - --hpccFct=1 writes fct.txt in HPCC's format, line for line the finished flows of fct.csv;
# - --progress prints progress lines to stderr and changes no output file;
# - --flowMonitor=1 lists every finished flow in flowmon.xml and changes no flow's outcome;
# - presto-compare's comparison.csv has the switch ECN-mark, drop and timeout columns, equal
#   to each run's summary.json counters, nonzero where the runs marked and dropped.
# About 30 s.
# usage: output-files.sh BUILD_DIR (with presto-spray and presto-compare)
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
spray() { # spray NAME ARG...: one presto-spray run into $tmp/NAME
    local name=$1
    shift
    "$bin/presto-spray" --simTime=0.005 --plot=false --out="$tmp/$name" "$@" \
        >"$tmp/$name.stdout" 2>"$tmp/$name.stderr"
    local rc=$?
    echo "run $name: exit status $rc"
    [ "$rc" -eq 0 ] || cat "$tmp/$name.stderr"
}

# summary.json: every --ns3:: argument (HashSeed=0 is its default: still recorded), the
# command line, the version
args=(--device=host-tcp --lossRate=0.01 --hpccFct=1 --progress=0.001
    --ns3::FabricSwitch::EcnThreshold=30000 --ns3::FabricSwitch::HashSeed=0
    --ns3::TcpSocketEndpoint::MinRto=5ms)
spray host "${args[@]}"
check "summary.json: every --ns3:: argument, its value, the command line, the version" \
    python3 - "$tmp/host/summary.json" "$bin/presto-spray" --simTime=0.005 --plot=false \
    --out="$tmp/host" "${args[@]}" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
argv = sys.argv[2:]
ok = True
if s.get("command_line") != argv:
    print("command_line", s.get("command_line"), "!=", argv); ok = False
attrs = s.get("attributes", {})
given = [a[2:].split("=", 1) for a in argv if a.startswith("--ns3::")]
if len(given) != 3:
    print("test error: expected three --ns3:: arguments"); ok = False
for name, value in given:
    if name not in attrs:
        print("missing attribute", name, "in", attrs); ok = False
    elif value != "5ms" and attrs[name] != value:
        print(name, "=", attrs[name], "but given", value); ok = False
if attrs.get("ns3::TcpSocketEndpoint::MinRto") not in ("+5ms", "+5000000ns", "5ms", "+5e+06ns"):
    print("MinRto recorded as", attrs.get("ns3::TcpSocketEndpoint::MinRto")); ok = False
v = s.get("version")
if not isinstance(v, str) or not v:
    print("version", v); ok = False
sys.exit(0 if ok else 1)
EOF
check "progress: at least one line on stderr" grep -q '^progress: host-tcp: simulated ' "$tmp/host.stderr"
check "progress: nothing on stdout" bash -c "! grep -q '^progress:' '$tmp/host.stdout'"

fct_columns() { # fct_columns DIR: fct.csv's new columns agree with flows.txt and each other
    python3 - "$1/fct.csv" "$1/flows.txt" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
header = open(sys.argv[1]).readline().strip()
ok = header.endswith(",retx_bytes,src_addr,dst_addr,src_port,dst_port,timeouts")
if not ok:
    print("header", header)
# flows.txt (HPCC format): count, then "src dst priority dport size start" per flow, id order
lines = open(sys.argv[2]).read().split("\n")[1:]
flows = [l.split() for l in lines if l.strip()]
if len(flows) != len(rows) or not rows:
    print(len(flows), "flows but", len(rows), "rows"); sys.exit(1)
addr = {}
ports = set()
retx = 0
for r, f in zip(rows, flows):
    for host, a in ((r["src"], r["src_addr"]), (r["dst"], r["dst_addr"])):
        if addr.setdefault(host, a) != a:
            print("host", host, "has addresses", addr[host], "and", a); ok = False
    if r["dst_port"] != f[3]:
        print("flow", r["id"], "dst_port", r["dst_port"], "flows.txt dport", f[3]); ok = False
    if r["src"] != f[0] or r["dst"] != f[1]:
        print("flow", r["id"], "is not flows.txt's"); ok = False
    port = int(r["src_port"])
    if not 1024 <= port <= 65535 or (r["src_addr"], port) in ports:
        print("flow", r["id"], "src_port", port, "out of range or reused"); ok = False
    ports.add((r["src_addr"], port))
    if r["retx_bytes"] == "" or r["timeouts"] == "":
        print("flow", r["id"], "retx_bytes/timeouts unknown"); ok = False
    else:
        retx += int(r["retx_bytes"])
if len(set(addr.values())) != len(addr) or any(a.count(".") != 3 for a in addr.values()):
    print("addresses are not one per host", addr); ok = False
if retx <= 0:
    print("no retransmitted bytes under a loss rate of 1%"); ok = False
print("%d flows, %d hosts, %d bytes retransmitted" % (len(rows), len(addr), retx))
sys.exit(0 if ok else 1)
EOF
}
check "host-tcp fct.csv: addresses, ports, retx_bytes > 0, timeouts" fct_columns "$tmp/host"
spray presto --device=presto --lossRate=0.01
check "presto fct.csv: addresses, ports, retx_bytes > 0, timeouts" fct_columns "$tmp/presto"
check "presto fct.csv: the flows' retx_bytes and timeouts add up to the NICs' counters" \
    python3 - "$tmp/presto/fct.csv" "$tmp/presto/summary.json" <<'EOF2'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
nic = json.load(open(sys.argv[2]))["nic"]
got = (sum(int(r["retx_bytes"]) for r in rows), sum(int(r["timeouts"]) for r in rows))
want = (nic["retx_bytes"], nic["timeouts"])
print("flows", got, "nic", want)
sys.exit(0 if got == want else 1)
EOF2

check "fct.txt: HPCC's lines, one per finished flow, in finishing order" \
    python3 - "$tmp/host/fct.csv" "$tmp/host/fct.txt" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["finish_ns"]]
rows.sort(key=lambda r: (int(r["finish_ns"]), int(r["id"])))
hexa = lambda a: "%08x" % int.from_bytes(bytes(int(x) for x in a.split(".")), "big")
want = ["%s %s %s %s %s %s %s %s" % (hexa(r["src_addr"]), hexa(r["dst_addr"]), r["src_port"],
        r["dst_port"], r["size_bytes"], r["start_ns"], r["fct_ns"], r["ideal_fct_ns"])
        for r in rows]
got = open(sys.argv[2]).read().splitlines()
if got != want or not got:
    print("fct.txt", got[:3], "expected", want[:3]); sys.exit(1)
EOF
check "no fct.txt without --hpccFct" test ! -e "$tmp/presto/fct.txt"

# progress changes no output file
spray quiet --device=presto --lossRate=0.01 --progress=0
spray loud --device=presto --lossRate=0.01 --progress=0.001
check "progress lines printed" grep -q '^progress: presto: ' "$tmp/loud.stderr"
check "--progress=0: none" bash -c "! grep -q '^progress:' '$tmp/quiet.stderr'"
for f in fct.csv flows.txt; do
    check "$f identical with and without progress" cmp "$tmp/quiet/$f" "$tmp/loud/$f"
done
strip() { # summary.json without the wall-clock "speed" and the command line
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("speed",None); d.pop("command_line",None); print(json.dumps(d,sort_keys=True))' "$1"
}
check "summary.json identical with and without progress (but for speed, command line)" \
    test "$(strip "$tmp/quiet/summary.json")" = "$(strip "$tmp/loud/summary.json")"

# --flowMonitor=1: FlowMonitor lists every finished flow of a fabric of presto and ns-3 TCP
# hosts, with at least its bytes received, and the run's outcome is the one without it
spray mixquiet --mix=presto:0.5,host-tcp:0.5 --lossRate=0.01
spray mixfm --mix=presto:0.5,host-tcp:0.5 --lossRate=0.01 --flowMonitor=1
check "flowmon.xml: every finished flow, its bytes received" \
    python3 - "$tmp/mixfm/fct.csv" "$tmp/mixfm/flowmon.xml" <<'EOF'
import csv, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[2]).getroot()
tuples = {}
for f in root.iter("Flow"):
    if "sourceAddress" in f.attrib:
        tuples[f.get("flowId")] = (f.get("sourceAddress"), f.get("destinationAddress"),
                                   f.get("sourcePort"), f.get("destinationPort"))
stats = {f.get("flowId"): f for f in root.find("FlowStats").iter("Flow")}
byTuple = {t: stats[i] for i, t in tuples.items() if i in stats}
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["finish_ns"]]
ok = len(rows) > 0
for r in rows:
    t = (r["src_addr"], r["dst_addr"], r["src_port"], r["dst_port"])
    st = byTuple.get(t)
    if st is None:
        print("flow", r["id"], t, "not in flowmon.xml"); ok = False
    elif int(st.get("rxBytes")) < int(r["size_bytes"]):
        print("flow", r["id"], "rxBytes", st.get("rxBytes"), "<", r["size_bytes"]); ok = False
print(len(rows), "finished flows;", len(tuples), "FlowMonitor flows")
sys.exit(0 if ok else 1)
EOF
check "fct.csv identical with and without --flowMonitor" cmp "$tmp/mixquiet/fct.csv" "$tmp/mixfm/fct.csv"

# comparison.csv: the switch and timeout counters of each row's run
"$bin/presto-compare" --simTime=0.003 --devices=host-tcp,presto:1 --plot=false --bursts=poisson \
    --burstInterval=0.001 --ns3::FabricSwitch::EcnThreshold=3000 \
    --ns3::FabricSwitch::BufferBytes=30000 --out="$tmp/compare" >"$tmp/compare.stdout" 2>&1
echo "presto-compare: exit status $?"
check "comparison.csv: switch_ecn_marks, switch_drops, timeouts as in each summary.json" \
    python3 - "$tmp/compare" <<'EOF'
import csv, json, sys, os
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "comparison.csv"))))
ok = len(rows) == 2
marks = drops = 0
for r in rows:
    s = json.load(open(os.path.join(sys.argv[1], r["label"], "summary.json")))
    timeouts = (s["nic"] if "nic" in s else s["tcp"])["timeouts"]
    want = (s["fabric"]["switch_ecn_marks"], s["fabric"]["switch_drops"], timeouts)
    got = tuple(int(float(r[k])) for k in ("switch_ecn_marks", "switch_drops", "timeouts"))
    print(r["label"], "marks, drops, timeouts:", got)
    ok = ok and got == want
    marks += got[0]
    drops += got[1]
if marks == 0 or drops == 0:
    print("expected marks and drops with a 3000-byte threshold and a 30000-byte buffer")
    ok = False
sys.exit(0 if ok else 1)
EOF
# the version outside a git checkout (a tarball, even one unpacked inside another repository)
script=$(dirname "$0")/../cmake/presto-version.cmake
git init -q "$tmp/repo" && git -C "$tmp/repo" -c user.name=t -c user.email=t@t commit -q \
    --allow-empty -m x && mkdir -p "$tmp/repo/presto"
check "version without git: unknown" bash -c "cmake -DSRC='$tmp/repo/presto' -DOUT='$tmp/v.h' -P '$script' &&
    grep -qx '#define PRESTO_VERSION \"unknown\"' '$tmp/v.h'"
echo "$fail failed"
[ "$fail" -eq 0 ]
