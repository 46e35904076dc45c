# Sourced by ray-cluster.sbatch and ray-worker.sh: the processes of a job's Ray on this node.
#
# ray_leftovers DIR [any-node]: PIDs of the processes of the Ray whose temp dir is DIR (with
# any-node, also DIR-<node>, a worker node's): those whose command lines name it as a whole path
# (after a space, '=', ':', ',' or a quote; then '/', such a character or the end), so job 123
# never matches job 1234's /tmp/...-ray-1234, and those holding a file open in it: Ray's
# per-node agents rename themselves (ray::DashboardAgent, ray::RuntimeEnvAgent) and, when the
# head is lost, can outlive their `ray start` unseen by Slurm's process tracking. Never the
# calling script itself (whose command line may name DIR too); only processes alive still.
ray_leftovers() {
  local pid quoted nodes="" held=(-lname "$1/*")
  quoted=$(printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
  if [ "${2:-}" = any-node ]; then
    nodes='(-[^[:space:]/]+)?'
    held+=(-o -lname "$1-*/*")
  fi
  for pid in $( (pgrep -f -- "(^|[[:space:]=:,'\"])$quoted$nodes(/|[[:space:]:,'\"]|\$)"
    find /proc/[0-9]*/fd -maxdepth 1 \( "${held[@]}" \) 2>/dev/null | cut -d/ -f3) | sort -un); do
    # alive still: not this function's own subshells, whose command line is the caller's
    [ "$pid" != "$$" ] && [ "$pid" != "$BASHPID" ] && kill -0 "$pid" 2>/dev/null &&
      printf '%s\n' "$pid"
  done
  return 0
}
