# Alibaba storage workload 2019 (as published with HPCC, Li et al., SIGCOMM 2019).
# Source: alibaba-edu/High-Precision-Congestion-Control, traffic_gen/AliStorage2019.txt
# (commit 9f4be2a9). Mean 40,870 bytes.
# Conversion: sizes are already in bytes; probabilities were in percent and are divided by 100.
# size_bytes cumulative_prob
0 0
4000 0.2293
8000 0.6921
16000 0.8061
32000 0.9047
64000 0.9353
128000 0.9677
256000 0.9753
2000000 1
