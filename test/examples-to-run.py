#! /usr/bin/env python3
# Examples run as smoke tests by ns-3's test.py (inside an ns-3 source tree).
# (example name and arguments, condition to run, condition to run under valgrind)
cpp_examples = [
    ("presto-dumbbell", "True", "False"),
    ("presto-dumbbell --design=ns3::FlexToeNetDevice", "True", "False"),
    ("presto-dumbbell --design=ns3::CoraNetDevice", "True", "False"),
    ("presto-dumbbell --design=flextoe", "True", "False"),
    ("presto-dumbbell --design=ns3::FixedLatencyNetDevice", "True", "False"),
    ("presto-dumbbell --design=cora --flowMonitor=flowmon.xml", "True", "False"),
    ("presto-spray --device=ns3::FixedLatencyNetDevice --verifyPayload=1 --simTime=0.002 --quiet=1 --plot=0 --out=fixed-latency-smoke", "True", "False"),
    ("presto-spray --simTime=0.002 --quiet=1 --plot=0 --out=presto-spray-smoke", "True", "False"),
    ("fabric-benchmark --simTime=0.0005", "True", "False"),
    ("presto-fidelity --simTime=0.002 --fidelities=0,1 --out=presto-fidelity-smoke", "True", "False"),
    ("flextoe-extensions --simTime=0.002 --out=flextoe-extensions-smoke", "True", "False"),
    ("presto-spray --device=cora --simTime=0.002 --quiet=1 --plot=0 --out=cora-smoke", "True", "False"),
    ("cora-l4lb --replayMs=1 --out=cora-l4lb-smoke", "True", "False"),
    ("cora-dynamic --phaseMs=2 --flows=2000 --out=cora-dynamic-smoke", "True", "False"),
    ("presto-compare --simTime=0.001 --devices=host-tcp,presto:1,cora --out=presto-compare-smoke", "True", "False"),
]
python_examples = []
