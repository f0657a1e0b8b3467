#!/bin/bash
# One huge pair spread over a Slurm job array: each array task measures its slice of A's points against all
# of B and its slice of B's against all of A (xhd reads its shard from SLURM_ARRAY_TASK_ID and
# SLURM_ARRAY_TASK_COUNT) and writes a part, complete or not at all. The merge gives exactly the unsharded
# `xhd compare`'s answer: HD, witnesses, and with --stats or --percentile every statistic.
#
#   sbatch --array=0-7 examples/slurm-compare.sh epoch1.laz epoch2.laz parts/ [xhd compare options…]
#   xhd merge parts/compare-*.part --json > answer.json
#
# or let Slurm run the merge when every task has finished:
#   job=$(sbatch --parsable --array=0-7 examples/slurm-compare.sh a.laz b.laz parts/ --percentile 95)
#   sbatch --dependency=afterok:$job --wrap "xhd merge parts/compare-*.part --json > answer.json"
#
# Every task reads both inputs whole (each slice is searched against the whole other set): give each task
# the memory of one unsharded run. A task that fails leaves no part, and the merge names the missing shard.
# XHD names the xhd executable when it is not on the PATH of the compute nodes.
#SBATCH --job-name=xhd-compare
#SBATCH --array=0-3
#SBATCH --cpus-per-task=4
#SBATCH --output=xhd-compare-%A_%a.log
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: sbatch --array=0-N examples/slurm-compare.sh A B OUTDIR [xhd compare options…]" >&2
  exit 2
fi
a=$1
b=$2
out=$3
shift 3
mkdir -p "$out"
exec "${XHD:-xhd}" compare "$a" "$b" --threads "${SLURM_CPUS_PER_TASK:-1}" --quiet \
  --partial "$out/compare-${SLURM_ARRAY_TASK_ID:?run this with sbatch --array}.part" "$@"
