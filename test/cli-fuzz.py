#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Command-line fuzz of presto-spray (issue 35, "nothing passes silently").

    python3 test/cli-fuzz.py PRESTO_SPRAY_BINARY [JOBS]

Every program option that `presto-spray --PrintHelp` lists (so a new option is covered
without touching this file) is given each of a fixed list of hostile values: exponent and
fractional forms, signs, hexadecimal, lists, trailing letters, units, nan, inf, numbers
beyond double and uint64, the empty string, a 5000-character string. Each run must either

  * be refused: exit status 1 and a message naming the option (--NAME), no output folder; or
  * run exactly as written: exit status 0 or 3 (a run that fell short) and summary.json's
    "config" holding that very value (the same text for a text option, the same number for a
    number, the same truth value for a boolean; for --out, the outputs in that folder).

An option is tried in the mode that makes it meaningful (an --rpc* option with --workload=rpc,
a --burst* option with --bursts=periodic, ...), so that the value itself is what is judged, not
the refusal of an option of a mode that is off. Runs are tiny (8 hosts, 0.5 ms of arrivals,
at most 20 generated flows, 50 ms of drain) and each has a 20 s timeout: a value that makes a run huge and is not refused
fails, named. JOBS runs in parallel (default 2). Prints one line per failure and the totals;
exit status 0 if there is none. CLI_FUZZ_VERBOSE=1 prints every case's outcome.
"""

import concurrent.futures
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HOSTILE = [
    "1e5",
    "3.9",
    "-1",
    "+5",
    "0x10",
    "1,2,3",
    "7abc",
    "10Gbps",
    "nan",
    "inf",
    "-inf",
    "1e400",
    "18446744073709551616",
    "",
    "a" * 5000,
]

# the run every case starts from: as small and short as the experiment goes; a generated
# flow workload is also capped at 20 flows (so that --simTime=3.9, a long but valid run,
# stays tiny)
BASE = {"simTime": "0.0005", "drainTime": "0.05", "quiet": "1", "plot": "0"}
FLOW_CAP = {"maxFlows": "20"}

# the mode in which an option means something (without it, it is refused as inactive)
CONTEXT = {
    "rpcConnections": {"workload": "rpc"},
    "rpcOutstanding": {"workload": "rpc"},
    "rpcRate": {"workload": "rpc"},
    "rpcBacklog": {"workload": "rpc", "rpcRate": "100000"},
    "rpcRequest": {"workload": "rpc"},
    "rpcResponse": {"workload": "rpc"},
    "rpcServers": {"workload": "rpc"},
    "serverCores": {"workload": "kv", "rpcServers": "1"},
    "kvGets": {"workload": "kv"},
    "kvKeys": {"workload": "kv"},
    "kvValues": {"workload": "kv"},
    "burstInterval": {"bursts": "periodic"},
    "burstSenders": {"bursts": "periodic"},
    "burstBytes": {"bursts": "periodic"},
    "burstReceiver": {"bursts": "periodic"},
    "mixBy": {"mix": "presto:0.5,host-tcp:0.5"},
    "k": {"topology": "fat-tree"},
    "incastSenders": {"pattern": "incast"},
    "fidelity": {"device": "presto"},
    "classRules": {"device": "presto"},
    "intervals": {"device": "presto"},
    "prestoPlacement": {"device": "presto"},
    "coraStrategy": {"device": "cora"},
}

# summary.json "config" keys that are not the option's name in snake case
KEYS = {
    "simTime": "sim_time_s",
    "drainTime": "drain_time_s",
    "warmup": "warmup_s",
    "burstInterval": "burst_interval_s",
    "queueTrace": "queue_trace_s",
}
# options whose value is not part of the run's configuration (how it is shown or written)
NOT_IN_CONFIG = {"quiet", "plot", "pcap", "out", "hpccFct", "flowMonitor"}
# options whose value summary.json keeps outside "config" (they set no result): where
OUTSIDE_CONFIG = {"progress": ("speed", "progress_s")}


def program_options(binary):
    """The option names of --PrintHelp's "Program Options" section."""
    text = subprocess.run(
        [binary, "--PrintHelp"], capture_output=True, text=True, timeout=60
    ).stdout
    names = []
    section = False
    for line in text.splitlines():
        if line.startswith("Program Options"):
            section = True
            continue
        if section and line and not line.startswith(" "):
            break
        m = re.match(r"\s+--([A-Za-z0-9_]+):", line)
        if section and m:
            names.append(m.group(1))
    return names


def config_key(option):
    return KEYS.get(option, re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), option))


def same_value(text, value):
    """Whether the summary's value is the text as written."""
    if isinstance(value, bool):
        return text in (("1", "true") if value else ("0", "false"))
    if isinstance(value, str):
        return value == text
    if isinstance(value, (int, float)):
        try:
            written = float(text)
        except ValueError:
            return False
        if "_" in text or not math.isfinite(written):
            return False
        return written == float(value)
    return False


def show(value):
    return repr(value if len(value) <= 40 else value[:20] + "...(%d chars)" % len(value))


def run_case(binary, work, index, option, value):
    """One run: None if it passed, else what went wrong."""
    cwd = os.path.join(work, "case%d" % index)
    os.makedirs(cwd)
    args = dict(BASE)
    context = CONTEXT.get(option, {})
    if context.get("workload") not in ("rpc", "kv") and option not in ("flowFile", "workload"):
        args.update(FLOW_CAP)
    args.update(context)
    args[option] = value
    out = value if option == "out" else "out"
    if option != "out":
        args["out"] = "out"
    argv = [binary] + ["--%s=%s" % (k, v) for k, v in args.items()]
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=20,
                           errors="replace")
    except subprocess.TimeoutExpired:
        shutil.rmtree(cwd, ignore_errors=True)
        return "timed out after 20 s (neither refused nor a tiny run)"
    try:
        err = p.stderr.strip()
        named = re.search(r"--%s(?![A-Za-z0-9_])" % re.escape(option), err)
        if p.returncode == 1:
            if not named:
                return "exit 1, message does not name --%s: %s" % (option, err[:300])
            if os.path.exists(os.path.join(cwd, out)) and out not in ("", "."):
                return "refused but left its output folder behind"
            return "refused"
        if p.returncode not in (0, 3):
            return "exit status %d: %s" % (p.returncode, err[:300])
        folder = os.path.join(cwd, out) if p.returncode == 0 else os.path.join(cwd, out) + ".partial"
        summary = os.path.join(folder, "summary.json")
        if not os.path.isfile(summary):
            return "exit %d but no %s" % (p.returncode, os.path.relpath(summary, cwd))
        if option in NOT_IN_CONFIG:
            return "ran" if option == "out" else "ran (value not in summary.json)"
        with open(summary, encoding="utf-8") as f:
            doc = json.load(f)
        section, key = OUTSIDE_CONFIG.get(option, ("config", config_key(option)))
        config = doc[section]
        if key not in config:
            return "ran, but summary.json's %s has no key %s" % (section, key)
        if not same_value(value, config[key]):
            return "ran with %s=%s, not the value written" % (key, json.dumps(config[key])[:80])
        return "ran"
    finally:
        shutil.rmtree(cwd, ignore_errors=True)


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    jobs = int(sys.argv[2]) if len(sys.argv) == 3 else 2
    options = program_options(binary)
    if len(options) < 20:
        print("FAIL: found only %d options in %s --PrintHelp" % (len(options), binary))
        return 1
    cases = [(o, v) for o in options for v in HOSTILE]
    work = tempfile.mkdtemp(prefix="presto-cli-fuzz-")
    results = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {
                pool.submit(run_case, binary, work, i, o, v): (o, v)
                for i, (o, v) in enumerate(cases)
            }
            for f in concurrent.futures.as_completed(futures):
                results[futures[f]] = f.result()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ran = refused = 0
    failures = []
    for o, v in cases:
        r = results[(o, v)]
        if r == "refused":
            refused += 1
        elif r == "ran":
            ran += 1
        else:
            failures.append("FAIL --%s=%s: %s" % (o, show(v), r))
    if os.environ.get("CLI_FUZZ_VERBOSE"):
        for o, v in cases:
            print("%-8s --%s=%s" % (results[(o, v)][:8], o, show(v)))
    for line in failures:
        print(line)
    print("%d options x %d values = %d runs: %d ran as written, %d refused naming the "
          "option, %d failed" % (len(options), len(HOSTILE), len(cases), ran, refused,
                                  len(failures)))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
