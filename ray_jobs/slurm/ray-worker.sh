#!/usr/bin/env bash
# A Ray worker node of a satsweep job (ray-cluster.sbatch runs it with srun on each node but the
# first): `ray start --block` until the batch script's teardown stops it with SIGTERM; a start
# that fails while the head answers (a slow node, below) is started again.
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
# Whichever way it ends, this script leaves nothing of this node's Ray behind (clear_node).
#
# The job's Ray token comes on stdin (the batch script's srun forwards it) and is kept as the
# batch script keeps it: in a file unlinked while still empty, held open here and read by Ray as
# /proc/<this script>/fd/N, so it is on no disk and vanishes with this script.
set -uo pipefail

[ $# -ge 4 ] || { echo "usage: ray-worker.sh RAY ADDRESS TEMP_DIR LOG [options]" >&2; exit 2; }
RAY=$1 ADDRESS=$2 TEMP_DIR=$3 LOG=$4
shift 4

# shellcheck source=ray-leftovers.sh
source "$(dirname "${BASH_SOURCE[0]}")/ray-leftovers.sh" || exit 2

# Stops this node's Ray for good: what outlived its `ray start` killed by PID, its temp dir
# removed (the batch script's teardown can clear only its own node, and does not run when that
# node is lost).
clear_node() {
  local pid
  for pid in $(ray_leftovers "$TEMP_DIR"); do kill -KILL "$pid" 2>/dev/null; done
  rm -rf -- "$TEMP_DIR"
}

umask 077
TOKEN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/satsweep-token.XXXXXX") || exit 1
exec {TOKEN_FD}<>"$TOKEN_DIR/ray-token"
rm -f "$TOKEN_DIR/ray-token"
rmdir "$TOKEN_DIR"
cat >&"$TOKEN_FD"
exec </dev/null
[ -s "/proc/$$/fd/$TOKEN_FD" ] || { echo "ray-worker.sh: no Ray token on stdin" >&2; exit 2; }
export RAY_AUTH_TOKEN_PATH=/proc/$$/fd/$TOKEN_FD

# Whether the head's GCS port answers (a refused or timed-out connect: it does not).
head_answers() { timeout 3 bash -c "exec 3<>/dev/tcp/${ADDRESS%:*}/${ADDRESS##*:}" 2>/dev/null; }

# The head is gone ($1: how this node found out): says so in the job's log and cancels the job.
# LOST keeps the message for stderr, written last of all: this step's srun ran on the lost node.
LOST=""
head_lost() {
  LOST="error: the Ray head at $ADDRESS is gone ($1): the job's first node, which ran the"
  LOST+=" head and the driver, failed or was stopped; cancelling job ${SLURM_JOB_ID:-?}; the"
  LOST+=" finished runs are in the store: submit again"
  LOST=$(printf '[ray-cluster %s] %s' "$(date +%H:%M:%S)" "$LOST")
  printf '%s\n' "$LOST" >>"$LOG"
  [ -z "${SLURM_JOB_ID:-}" ] || scancel "$SLURM_JOB_ID"
}

RAY_PID=""
# SIGTERM: the batch script's teardown (it stops the workers while the head still answers),
# scancel or the time limit (the job no longer RUNNING), or the first node's loss: Slurm then
# ends this step too, within seconds of it (seen: 1-6 s, before slurmctld even marks the node
# down; the step's srun ran there), often before the watch below has counted its misses, and
# the job would stay RUNNING with nothing left to end it. So a head that is gone while the job
# is still RUNNING is said and the job cancelled here.
stopped() {
  local code=0
  trap '' TERM INT  # our own scancel's TERM, or a second one, while this runs
  [ -z "$RAY_PID" ] || kill -TERM "$RAY_PID" 2>/dev/null
  if [ -n "${SLURM_JOB_ID:-}" ] && ! head_answers &&
    [ "$(squeue -h -j "$SLURM_JOB_ID" -o %T 2>/dev/null)" = RUNNING ]; then
    head_lost "no answer from $(hostname) when Slurm ended this step"
    code=1
  fi
  [ -z "$RAY_PID" ] || wait "$RAY_PID"
  clear_node
  [ -z "$LOST" ] || printf '%s\n' "$LOST" >&2
  exit "$code"
}
trap stopped TERM INT

# `ray start` may fail on a node that is only slow: Ray 2.60's raylet gives its dashboard agent
# (a Python process) 15 s, not configurable, to write its port files, and aborts past that ("Timed
# out waiting for file .../metrics_agent_port_..." in the node's raylet.out). On a busy node,
# with every node's Ray and the driver starting at once, the agent's imports take longer (seen:
# 15 s on both worker nodes of a 3-node job on 2 loaded cores). So while the head answers, a
# `ray start` that ended is started again, up to START_TRIES starts; a failed start leaves no
# process behind, and the next one gets fresh socket names in the same temp dir.
START_TRIES=3
starts=0
start_ray() {
  starts=$((starts + 1))
  "$RAY" start --address="$ADDRESS" --temp-dir="$TEMP_DIR" "$@" {TOKEN_FD}<&- &
  RAY_PID=$!
}
start_ray "$@"
# Watch the head ourselves: Ray's own worker node may keep waiting for a lost head for minutes.
# The head is gone after MISSES failed connects CHECK_S apart; sleeping in the background keeps
# the TERM trap prompt. The watch goes on whatever this node's Ray does (also after its last
# failed start): while any worker step lives, a lost head ends the job instead of leaving it
# RUNNING with no batch script.
CHECK_S=5
MISSES=3
misses=0
while [ "$misses" -lt "$MISSES" ]; do
  sleep "$CHECK_S" &
  wait $!
  if ! head_answers; then
    misses=$((misses + 1))
    continue
  fi
  misses=0
  if [ -n "$RAY_PID" ] && ! kill -0 "$RAY_PID" 2>/dev/null; then
    wait "$RAY_PID"
    code=$?
    RAY_PID=""
    said="ray start on $(hostname) ended with $code (start $starts of $START_TRIES) while the"
    said+=" head at $ADDRESS answers"
    if [ "$starts" -lt "$START_TRIES" ]; then
      echo "$said: starting it again" >&2
      start_ray "$@"
    else
      # The job goes on without this node's Ray (wait-for-ray ends it if its CPUs never came).
      echo "$said: no Ray on this node; still watching the head" >&2
    fi
  fi
done
if [ -n "$RAY_PID" ]; then
  kill -TERM "$RAY_PID" 2>/dev/null
  wait "$RAY_PID"
  RAY_PID=""
fi
trap '' TERM INT  # the job is being cancelled here: its TERM needs no second look
head_lost "no answer from $(hostname) for about $((CHECK_S * MISSES)) s"
clear_node
printf '%s\n' "$LOST" >&2
exit 1
