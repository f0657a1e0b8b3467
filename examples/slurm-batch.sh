#!/bin/bash
# A batch of pairs spread over a Slurm job array: each array task compares every N-th pair of the manifest
# (xhd reads its shard from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT) and writes its own output,
# complete or not at all. Then one merge gives the stream an unsharded `xhd batch` prints.
#
#   sbatch --array=0-15 examples/slurm-batch.sh pairs.csv parts/ [xhd batch options…]
#   xhd merge parts/batch-*.jsonl > results.jsonl      # exit code as the unsharded batch's
#
# or let Slurm run the merge when every task has finished:
#   job=$(sbatch --parsable --array=0-15 examples/slurm-batch.sh pairs.csv parts/)
#   sbatch --dependency=afterany:$job --wrap "xhd merge parts/batch-*.jsonl > results.jsonl"
#
# A task fails (and Slurm says so) only when its shard did not finish: a pair that exceeds its threshold or
# cannot be read is an answer, recorded in the output, and decides the merge's exit code. A task that failed
# leaves no output, and the merge names it; run that task again with `sbatch --array=K …`.
# XHD names the xhd executable when it is not on the PATH of the compute nodes.
#SBATCH --job-name=xhd-batch
#SBATCH --array=0-3
#SBATCH --cpus-per-task=4
#SBATCH --output=xhd-batch-%A_%a.log
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: sbatch --array=0-N examples/slurm-batch.sh MANIFEST OUTDIR [xhd batch options…]" >&2
  exit 2
fi
manifest=$1
out=$2
shift 2
mkdir -p "$out"
part="$out/batch-${SLURM_ARRAY_TASK_ID:?run this with sbatch --array}.jsonl"
"${XHD:-xhd}" batch "$manifest" --threads "${SLURM_CPUS_PER_TASK:-1}" --quiet --partial "$part" "$@"
status=$?
# 0: all passed; 1: a threshold exceeded; 2 or 3 with the output written: a pair failed. All finished.
[ -f "$part" ] && exit 0
exit "$status"
