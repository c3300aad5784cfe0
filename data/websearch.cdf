# WebSearch workload (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010).
# Source: alibaba-edu/High-Precision-Congestion-Control, traffic_gen/WebSearch_distribution.txt
# (commit 9f4be2a9), the CDF used by the HPCC ns-3 simulator; the same points appear in
# HKUST-SING/TrafficGenerator conf/DCTCP_CDF.txt. Mean 1,711,250 bytes (PIAS quotes the same).
# Conversion: sizes are already in bytes; probabilities were in percent and are divided by 100.
# Sampling interpolates linearly between points.
# size_bytes cumulative_prob
0 0
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1
