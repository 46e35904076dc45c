#!/usr/bin/env bash
# A Ray worker node of a satsweep job (ray-cluster.sbatch runs it with srun on each node but the
# first): `ray start --block` until the batch script's teardown stops it with SIGTERM.
#
#   ray-worker.sh RAY ADDRESS TEMP_DIR LOG [ray start options ...]
#
# If `ray start` ends by itself instead and the head no longer answers, the head is gone (Ray
# stops a worker node that has lost the head's GCS), and with it the job's first node: the batch script, the driver and the head.
# Slurm does not end a job whose batch node failed when it runs with --no-kill (which satsweep
# submit asks for, so that losing another node does not end the job), so this script says why
# in the job's log LOG and cancels the job; the runs finished stay in the store and a new
# submission completes the sweep.
set -uo pipefail

[ $# -ge 4 ] || { echo "usage: ray-worker.sh RAY ADDRESS TEMP_DIR LOG [options]" >&2; exit 2; }
RAY=$1 ADDRESS=$2 TEMP_DIR=$3 LOG=$4
shift 4

RAY_PID=""
stopped() {
  [ -z "$RAY_PID" ] || kill -TERM "$RAY_PID" 2>/dev/null
  [ -z "$RAY_PID" ] || wait "$RAY_PID"
  exit 0
}
trap stopped TERM INT

"$RAY" start --address="$ADDRESS" --temp-dir="$TEMP_DIR" "$@" &
RAY_PID=$!
wait "$RAY_PID"
code=$?
RAY_PID=""
# A head that still answers: only this worker failed; the job goes on without it.
if timeout 5 bash -c "exec 3<>/dev/tcp/${ADDRESS%:*}/${ADDRESS##*:}" 2>/dev/null; then
  echo "ray start on $(hostname) ended with $code; the head at $ADDRESS still answers" >&2
  exit 1
fi
message="error: the Ray head at $ADDRESS is gone (ray start on $(hostname) ended with $code):"
message+=" the job's first node, which ran the head and the driver, failed or was stopped;"
message+=" cancelling job ${SLURM_JOB_ID:-?}; the finished runs are in the store: submit again"
printf '[ray-cluster %s] %s\n' "$(date +%H:%M:%S)" "$message" | tee -a "$LOG" >&2
[ -z "${SLURM_JOB_ID:-}" ] || scancel "$SLURM_JOB_ID"
exit 1
