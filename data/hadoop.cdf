# Hadoop workload of Facebook (Roy et al., "Inside the Social Network's (Datacenter) Network",
# SIGCOMM 2015), called FbHdp in HPCC.
# Source: alibaba-edu/High-Precision-Congestion-Control, traffic_gen/FbHdp_distribution.txt
# (commit 9f4be2a9). Mean 120,421 bytes.
# Conversion: sizes are already in bytes; probabilities were in percent and are divided by 100.
# size_bytes cumulative_prob
0 0
100 0.01
200 0.02
300 0.05
350 0.15
400 0.2
500 0.3
600 0.4
700 0.5
1000 0.6
2000 0.67
7000 0.7
30000 0.72
50000 0.82
80000 0.87
120000 0.9
300000 0.95
1000000 0.975
2000000 0.99
10000000 1
