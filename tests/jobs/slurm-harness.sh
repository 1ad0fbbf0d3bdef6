#!/usr/bin/env bash
# A real single-node Slurm (munged + slurmctld + slurmd from Debian) in a directory of its own,
# for the jobs/ tests and for trying jobs/submit by hand (jobs/README.md, "Try it on a local
# Slurm"). Root, no systemd, no cgroups; nothing outside DIR is written or read except the
# binaries, and every daemon is stopped by the PID this script recorded.
#
#   tests/jobs/slurm-harness.sh up DIR     start a cluster of one node in DIR (created; absent or
#                                          empty), wait until the node is idle, print the
#                                          `export SLURM_CONF=...` line that clients need
#   tests/jobs/slurm-harness.sh down DIR   cancel its jobs, stop its daemons and job processes by PID
#   tests/jobs/slurm-harness.sh status DIR sinfo and squeue of that cluster
#
# Sourced (tests): slurm_up DIR, slurm_down DIR, slurm_watchdog DIR PID (stops the cluster
# when process PID ends, however it ends: a test killed by ctest's timeout included).
#
# DIR holds slurm.conf, its own munge key and socket, state, spool, logs (DIR/log/) and
# DIR/pids ("NAME PID" lines). Ports: two free ones picked at start (not 6817/6818), so the
# harness neither collides with a site Slurm nor with another harness.

# slurm_fail MESSAGE: one line on stderr, return 1 (the caller decides to skip or fail).
slurm_fail() {
  echo "slurm-harness: $*" >&2
  return 1
}

# slurm_free_port: a TCP port nobody listens on right now.
slurm_free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

slurm_up() {
  local dir=$1 bin
  for bin in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sinfo /usr/bin/sbatch; do
    [[ -x $bin ]] || { slurm_fail "$bin is not installed (apt-get install slurmctld slurmd slurm-client munge)"; return 1; }
  done
  [[ $(id -u) -eq 0 ]] || { slurm_fail "must run as root (SlurmUser=root, munged as user munge)"; return 1; }
  id munge >/dev/null 2>&1 || { slurm_fail "no user 'munge' (install the munge package)"; return 1; }
  mkdir -p "$dir" || return 1
  dir=$(cd "$dir" && pwd -P)
  if [[ -n $(ls -A "$dir") ]]; then slurm_fail "$dir is not empty"; return 1; fi
  mkdir -p "$dir"/{state,spool,log,munge,tmp}
  : >"$dir/pids"

  # munge: a key and a socket of this cluster only. munged insists on safe permissions.
  chown munge: "$dir/munge" && chmod 0700 "$dir/munge"
  if ! setpriv --reuid=munge --regid=munge --init-groups test -w "$dir/munge"; then
    slurm_fail "user munge cannot reach $dir/munge: make its parent directories searchable (chmod o+x)"
    return 1
  fi
  if ! setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/mungekey -c -k "$dir/munge/munge.key" >"$dir/log/mungekey.log" 2>&1; then
    slurm_fail "mungekey failed: $(tail -n 1 "$dir/log/mungekey.log")"
    return 1
  fi
  chmod 0755 "$dir/munge"  # clients (any user) must reach the socket
  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged -F --force \
    --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" \
    --log-file="$dir/log/munged.log" </dev/null >>"$dir/log/munged.out" 2>&1 &
  echo "munged $!" >>"$dir/pids"
  for _ in $(seq 1 100); do [[ -S $dir/munge/munge.socket ]] && break; sleep 0.05; done
  [[ -S $dir/munge/munge.socket ]] || { slurm_fail "munged did not start: $(tail -n 2 "$dir/log/munged.log" 2>/dev/null)"; return 1; }

  local ctld_port slurmd_port
  if ! ctld_port=$(slurm_free_port) || ! slurmd_port=$(slurm_free_port); then slurm_fail "no free TCP port"; return 1; fi
  # cred_expire is also how long a requeued job waits before it may start again (default 120 s);
  # KillWait: seconds between SIGTERM and SIGKILL at the time limit or on scancel.
  cat >"$dir/slurm.conf" <<EOF
# Written by tests/jobs/slurm-harness.sh: a cluster of one node, for tests.
ClusterName=nqctest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=10
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0,sched_interval=2
MinJobAge=5
EnforcePartLimits=ALL
JobRequeue=1
KillWait=10
OverTimeLimit=0
MailProg=/bin/true
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
# Where srun --mpi=pmix puts spmix_appdir_UID_JOBID.STEP (default /tmp): two clusters of this
# harness at once (tests of two worktrees) number their jobs alike and would share it.
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES State=UP MaxTime=INFINITE
EOF
  export SLURM_CONF=$dir/slurm.conf
  /usr/sbin/slurmctld -D -c -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
  echo "slurmctld $!" >>"$dir/pids"
  /usr/sbin/slurmd -D -N localhost -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmd.out" 2>&1 &
  echo "slurmd $!" >>"$dir/pids"
  local state=""
  for _ in $(seq 1 300); do  # up to 30 s; under 1 s here
    state=$(sinfo -h -o %t 2>/dev/null | head -n 1)
    [[ $state == idle ]] && break
    sleep 0.1
  done
  if [[ $state != idle ]]; then
    slurm_fail "the node did not become idle in 30 s (state '${state:-none}'); slurmctld: $(tail -n 2 "$dir/log/slurmctld.log" 2>/dev/null | tr '\n' ' ') slurmd: $(tail -n 2 "$dir/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
    return 1
  fi
  echo "export SLURM_CONF=$SLURM_CONF" >"$dir/env.sh"
}

# slurm_procs DIR: what the daemons of DIR leave behind: slurmstepd processes of this cluster
# (recognised by SLURM_CONF=DIR/slurm.conf in their environment) and all their descendants
# (batch shells, srun, the job's tasks). Never the caller's shell or its ancestors.
slurm_procs() {
  local conf=$1/slurm.conf pid ppid comm
  local -A parent_of=()
  local roots=()
  while read -r pid ppid comm; do
    parent_of[$pid]=$ppid
    if [[ $comm == slurmstepd ]] && { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$conf"; then
      roots+=("$pid")
    fi
  done < <(ps -eo pid=,ppid=,comm=)
  ((${#roots[@]})) || return 0
  local -A mine=()
  for pid in "${roots[@]}"; do mine[$pid]=1; done
  local changed=1
  while ((changed)); do  # descendants: the process tree is small, iterate to a fixed point
    changed=0
    for pid in "${!parent_of[@]}"; do
      if [[ -z ${mine[$pid]:-} && -n ${mine[${parent_of[$pid]}]:-} ]]; then mine[$pid]=1; changed=1; fi
    done
  done
  printf '%s\n' "${!mine[@]}"
}

# slurm_kill PIDS...: SIGTERM, up to 5 s, then SIGKILL to those still there.
slurm_kill() {
  local pid alive
  (($#)) || return 0
  kill -TERM "$@" 2>/dev/null
  for _ in $(seq 1 50); do
    alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    sleep 0.1
  done
  kill -KILL "$@" 2>/dev/null
  return 0
}

# slurm_clients DIR: processes with SLURM_CONF=DIR/slurm.conf in their environment (the
# clients of a test: jobs/submit, sbatch --wait, ...), but this process and its ancestors.
slurm_clients() {
  local conf=$1/slurm.conf p ancestors=" " q=$$
  while [[ -n $q && $q != 0 ]]; do
    ancestors+="$q "
    q=$(awk '{ print $4 }' "/proc/$q/stat" 2>/dev/null)
  done
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [[ $ancestors == *" $p "* || $p == "$BASHPID" ]] && continue
    if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$conf"; then echo "$p"; fi
  done
}

# slurm_down DIR [clients]: with "clients" (the watchdog, once the test has died), first the
# test's leftover Slurm clients, then the cluster.
slurm_down() {
  local dir=$1 name pid daemons=() munge=()
  [[ -f $dir/pids ]] || return 0
  dir=$(cd "$dir" && pwd -P)
  if [[ ${2:-} == clients ]]; then
    mapfile -t clients < <(slurm_clients "$dir")
    slurm_kill "${clients[@]}"
  fi
  if [[ -f $dir/slurm.conf ]]; then
    # Cancel every job and give them KillWait (10 s) to end, so that slurmd cleans up itself.
    SLURM_CONF=$dir/slurm.conf timeout 5 scancel --quiet --user=root >/dev/null 2>&1 || true
    for _ in $(seq 1 60); do
      [[ -z $(SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h -o %i 2>/dev/null) ]] && break
      sleep 0.25
    done
  fi
  while read -r name pid; do
    if [[ $name == munged ]]; then munge+=("$pid"); else daemons+=("$pid"); fi
  done <"$dir/pids"
  slurm_kill "${daemons[@]}"
  # What the daemons left: slurmstepd and job processes of this cluster (by their environment).
  mapfile -t rest < <(slurm_procs "$dir")
  slurm_kill "${rest[@]}"
  slurm_kill "${munge[@]}"
  mv "$dir/pids" "$dir/pids.stopped"
}

# slurm_watchdog DIR PID: a detached process that runs `down DIR` when PID has ended.
slurm_watchdog() {
  local dir=$1 owner=$2 self
  self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/slurm-harness.sh
  # shellcheck disable=SC2016 # $1..$3 are the arguments of bash -c
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; bash "$2" watchdog-down "$3"' \
    watchdog "$owner" "$self" "$dir" </dev/null >/dev/null 2>&1 &
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -u
  usage="usage: $0 up|down|status DIR"
  [[ $# -eq 2 ]] || { echo "$usage" >&2; exit 1; }
  case $1 in
    up)
      # Detached from this shell, so that the cluster outlives it; `down DIR` stops it.
      if slurm_up "$2"; then
        cat "$2/env.sh"
        echo "# a cluster of one node ($(nproc) CPUs, partition debug) is up; stop it with: $0 down $2" >&2
      else
        slurm_down "$2"
        exit 1
      fi
      ;;
    down) slurm_down "$2" ;;
    watchdog-down) slurm_down "$2" clients ;;  # for slurm_watchdog only
    status)
      SLURM_CONF=$(cd "$2" && pwd -P)/slurm.conf
      export SLURM_CONF
      sinfo && squeue
      ;;
    *) echo "$usage" >&2; exit 1 ;;
  esac
fi
