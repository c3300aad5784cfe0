#!/bin/bash
# usage: bench/same-outputs.sh BINDIR REFDIR [--make-reference]
#
# The check behind a refactoring that must not change behaviour ("byte-identical outputs"):
# runs ten presto-spray scenarios (every design on the reference leaf-spine, fast links,
# rpc, incast, a device mix, loss) with BINDIR/presto-spray and compares every output file
# (fct.csv, flows.txt, summary.json without speed/version/command_line, the exit status)
# with those in REFDIR. Make REFDIR first from the commit before the change:
#   bench/same-outputs.sh OLD_BUILD /tmp/ref --make-reference
#   bench/same-outputs.sh NEW_BUILD /tmp/ref        # "same" per scenario, exit 0
# About 10 s. Exit 1 when any scenario differs, 2 on usage errors.
set -u
if [ $# -lt 2 ] || [ ! -x "$1/presto-spray" ]; then
    echo "usage: $0 BINDIR REFDIR [--make-reference]" >&2
    exit 2
fi
b=$1; ref=$2
if [ "${3:-}" = --make-reference ]; then root=$ref; make=1; else root=$(mktemp -d); make=0; fi
common="--leaves=4 --hostsPerLeaf=8 --spines=4 --hostRate=10Gbps --coreRate=40Gbps --linkDelay=1us --lb=spray --quiet=1 --plot=0 --allowUnfinished=1"
declare -A S
S[presto]="--workload=websearch --load=0.5 --simTime=0.005 --device=presto --fidelity=1"
S[flextoe]="--workload=websearch --load=0.5 --simTime=0.005 --device=flextoe"
S[cora]="--workload=websearch --load=0.5 --simTime=0.005 --device=cora"
S[host-tcp]="--workload=websearch --load=0.5 --simTime=0.005 --device=host-tcp"
S[fast-presto]="--workload=websearch --load=0.5 --simTime=0.002 --drainTime=0.002 --links=fast --device=presto --fidelity=1"
S[rpc-presto]="--workload=rpc --rpcConnections=4 --simTime=0.002 --device=presto"
S[rpc-host]="--workload=rpc --rpcConnections=4 --simTime=0.002 --device=host-tcp"
S[incast-flextoe]="--workload=websearch --pattern=incast --load=0.3 --simTime=0.003 --device=flextoe"
S[mix]="--workload=datamining --load=0.4 --simTime=0.003 --mix=presto:0.5,host-tcp:0.5"
S[lossy-cora]="--workload=websearch --load=0.4 --simTime=0.003 --lossRate=0.01 --device=cora"
rc=0
for k in $(echo "${!S[@]}" | tr ' ' '\n' | sort); do
  o=$root/$k; rm -rf $o; mkdir -p $o
  $b/presto-spray $common ${S[$k]} --out=$o >$o/stdout 2>$o/stderr; echo "exit $?" >> $o/stdout
  python3 - $o/summary.json <<'P'
import json,sys
try: j=json.load(open(sys.argv[1]))
except Exception as e: print("no summary", e); sys.exit(0)
for x in ("speed","version","command_line"): j.pop(x,None)
json.dump(j,open(sys.argv[1]+".cmp","w"),indent=1,sort_keys=True)
P
  if [ $make = 0 ]; then
    r=$ref/$k; st=same
    for f in $(ls $r | grep -v '^summary.json$'); do cmp -s $r/$f $o/$f || { st="DIFF in $f"; rc=1; }; done
    [ "$(tail -1 $r/stdout)" = "$(tail -1 $o/stdout)" ] || { st="$st, exit differs"; rc=1; }
    echo "$k: $st"
  fi
done
[ $make = 1 ] || rm -rf "$root"
exit $rc
