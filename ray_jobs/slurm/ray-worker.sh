#!/usr/bin/env bash
# A Ray worker node of a satsweep job (ray-cluster.sbatch runs it with srun on each node but the
# first): `ray start --block` until the batch script's teardown stops it with SIGTERM.
#
#   ray-worker.sh RAY ADDRESS TEMP_DIR LOG [ray start options ...] <TOKEN
#
# If the head stops answering instead (this script connects to its port every few seconds),
# the head is gone, and with it the job's first node: the batch script, the driver and the head.
# Slurm does not end a job whose batch node failed when it runs with --no-kill (which satsweep
# submit asks for, so that losing another node does not end the job), so this script says why
# in the job's log LOG and cancels the job; the runs finished stay in the store and a new
# submission completes the sweep.
#
# The job's Ray token comes on stdin (the batch script's srun forwards it) and is kept as the
# batch script keeps it: in a file unlinked while still empty, held open here and read by Ray as
# /proc/<this script>/fd/N, so it is on no disk and vanishes with this script.
set -uo pipefail

[ $# -ge 4 ] || { echo "usage: ray-worker.sh RAY ADDRESS TEMP_DIR LOG [options]" >&2; exit 2; }
RAY=$1 ADDRESS=$2 TEMP_DIR=$3 LOG=$4
shift 4

umask 077
TOKEN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/satsweep-token.XXXXXX") || exit 1
exec {TOKEN_FD}<>"$TOKEN_DIR/ray-token"
rm -f "$TOKEN_DIR/ray-token"
rmdir "$TOKEN_DIR"
cat >&"$TOKEN_FD"
exec </dev/null
[ -s "/proc/$$/fd/$TOKEN_FD" ] || { echo "ray-worker.sh: no Ray token on stdin" >&2; exit 2; }
export RAY_AUTH_TOKEN_PATH=/proc/$$/fd/$TOKEN_FD

RAY_PID=""
stopped() {
  [ -z "$RAY_PID" ] || kill -TERM "$RAY_PID" 2>/dev/null
  [ -z "$RAY_PID" ] || wait "$RAY_PID"
  exit 0
}
trap stopped TERM INT

# Whether the head's GCS port answers (a refused or timed-out connect: it does not).
head_answers() { timeout 3 bash -c "exec 3<>/dev/tcp/${ADDRESS%:*}/${ADDRESS##*:}" 2>/dev/null; }

"$RAY" start --address="$ADDRESS" --temp-dir="$TEMP_DIR" "$@" {TOKEN_FD}<&- &
RAY_PID=$!
# Watch the head ourselves: Ray's own worker node may keep waiting for a lost head for minutes.
# The head is gone after MISSES failed connects CHECK_S apart; sleeping in the background keeps
# the TERM trap prompt.
CHECK_S=5
MISSES=3
misses=0
while kill -0 "$RAY_PID" 2>/dev/null && [ "$misses" -lt "$MISSES" ]; do
  sleep "$CHECK_S" &
  wait $!
  if head_answers; then misses=0; else misses=$((misses + 1)); fi
done
if [ "$misses" -lt "$MISSES" ] && head_answers; then
  wait "$RAY_PID"
  echo "ray start on $(hostname) ended with $?; the head at $ADDRESS still answers" >&2
  exit 1  # only this worker failed; the job goes on without it
fi
kill -TERM "$RAY_PID" 2>/dev/null
wait "$RAY_PID"
RAY_PID=""
message="error: the Ray head at $ADDRESS is gone (no answer from $(hostname) for about"
message+=" $((CHECK_S * MISSES)) s): the job's first node, which ran the head and the driver,"
message+=" failed or was stopped; cancelling job ${SLURM_JOB_ID:-?}; the finished runs are in"
message+=" the store: submit again"
printf '[ray-cluster %s] %s\n' "$(date +%H:%M:%S)" "$message" | tee -a "$LOG" >&2
[ -z "${SLURM_JOB_ID:-}" ] || scancel "$SLURM_JOB_ID"
exit 1
