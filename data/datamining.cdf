# DataMining workload (Greenberg et al., "VL2: A Scalable and Flexible Data Center Network",
# SIGCOMM 2009), in the form used by the pFabric and PIAS ns-2 simulations.
# Source: HKUST-SING/MQ-ECN-NS2, scripts/CDF_vl2.tcl (same points as HKUST-SING/PIAS-NS2
# scripts/CDF_vl2.tcl and HKUST-SING/TrafficGenerator conf/CDF_vl2.txt).
# Conversion: the source gives sizes in packets of 1460 bytes (MSS) and probabilities in [0,1];
# sizes here are packets * 1460 bytes. The first two points share the size 1460, so half of
# all flows are exactly one packet (a point mass); the source's middle column (always 1) is
# dropped. Mean 7,470,236 bytes (PIAS scripts quote 5117 packets * 1460 = 7,470,820).
# size_bytes cumulative_prob
1460 0
1460 0.5
2920 0.6
4380 0.7
10220 0.8
389820 0.9
3076220 0.95
97333820 0.99
973333820 1
