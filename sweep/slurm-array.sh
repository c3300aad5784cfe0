#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Slurm job array for a presto sweep: array task i runs line i of DIR/runs.txt through the
# same per-run wrapper as the local sweep (presto-sweep.sh --run-one), so finished runs are
# skipped and interrupted ones redone. From the repository root, on a shared filesystem:
#
#   sweep/presto-sweep.sh --out DIR --loads ... --devices ... --list-only   # writes DIR/runs.txt
#   sbatch --array=1-$(wc -l < DIR/runs.txt) sweep/slurm-array.sh DIR
#   build/presto-aggregate --in=DIR                                           # when all are done
#
# sbatch runs a copy of this script from its spool folder, so the wrapper is found through
# $PRESTO_SWEEP, else $SLURM_SUBMIT_DIR/sweep/presto-sweep.sh (submit from the repo root).
# Limit concurrent tasks with --array=1-N%50; clusters cap N at MaxArraySize (often 1001).
#
#SBATCH --job-name=presto-sweep
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --mem=2G
#SBATCH --output=slurm-%A_%a.out
set -u

if [ $# -ne 1 ]; then
    echo "usage: sbatch --array=1-N sweep/slurm-array.sh DIR" >&2
    exit 2
fi
if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
    echo "slurm-array.sh: SLURM_ARRAY_TASK_ID is not set (submit with sbatch --array=1-N)" >&2
    exit 2
fi
sweep=${PRESTO_SWEEP:-${SLURM_SUBMIT_DIR:-.}/sweep/presto-sweep.sh}
if [ ! -x "$sweep" ]; then
    echo "slurm-array.sh: '$sweep' not found; set PRESTO_SWEEP or submit from the repo root" >&2
    exit 2
fi
exec "$sweep" --run-one "$SLURM_ARRAY_TASK_ID" "$1"
