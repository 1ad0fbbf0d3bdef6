# shellcheck shell=bash
# A simulated cluster on one machine, for the tests of tests/cluster/ (sourced, bash; root).
#
# K hosts nqc-h0 .. nqc-h(K-1) and a head node nqc-head, each a network namespace of its own,
# joined by a bridge that lives in the head node's namespace: every host has its own network
# stack (eth0, 10.199.0.(10+i)/24; the head 10.199.0.2), its own host name (UTS namespace),
# /etc/hosts, node-local /tmp and /dev/shm (bind mounts in a mount namespace per command);
# every other file system is shared, as a cluster's shared file system would be. The
# namespaces have no route anywhere else: traffic stays on the cluster's own bridge, the
# machine's network is never touched. Open MPI reaches the hosts through an rsh agent
# (nsrsh), Slurm runs slurmctld on the head node and one slurmd per host, with a munged and a
# key of this cluster only.
#
# Every cluster has a random id: its namespaces are nqc-ID-head, nqc-ID-h0, ..., so clusters
# of tests run in parallel (two worktrees) or left behind by a killed test never collide;
# the host names inside (nqc-h0, ...) are the same for all, each in its own UTS namespace.
# Everything a cluster starts runs inside its namespaces, so stopping it is exact: every
# process of those namespaces (`ip netns pids`), then the namespaces; no process is looked
# up by name. cluster_up installs an EXIT trap that does this (and removes TMP of
# tests/cli/lib.sh) and a detached watchdog that does it if the test is killed (SIGKILL by
# ctest's timeout included).
#
# Shared files of a cluster live in CLUSTER_BASE (/var/tmp/nqc-cluster.XXXXXX, or under
# $NQC_CLUSTER_PARENT; never under /tmp, which is node-local on the hosts):
#   bin/onhost HOST CMD...   run CMD on HOST (a shell's command line: onhost nqc-h1 hostname)
#   bin/nsrsh                the same as an Open MPI rsh agent (--mca plm_rsh_agent)
#   bin/slurm CMD...         a Slurm client (sinfo, squeue, ...) on the head node, SLURM_CONF set
#   local/HOST/              HOST's /tmp (local/HOST.shm/: its /dev/shm)
#   work/                    scratch space of the test, visible on every host
#   slurm/, munge/           the Slurm cluster (slurm.conf, logs in slurm/log/)
#
# Functions (after sourcing tests/cli/lib.sh):
#   cluster_require          exit 77 (ctest: skipped) unless root with `ip netns` working
#   cluster_up K             K hosts and the head node; sets CLUSTER_BASE, CLUSTER_ID, WORK,
#                            ONHOST, NSRSH, CLUSTER_HOSTS (array)
#   cluster_shared PATH      PATH if every host sees it, else a copy under CLUSTER_BASE (a
#                            binary or config under /tmp)
#   cluster_shared_repo REPO the same for the repository's jobs/, analysis/ and configs/
#   mpirun_hosts SPEC NP ARGS...   mpirun on nqc-h0 over TCP across the hosts of SPEC
#                            ("nqc-h0:2,nqc-h1:2"), bounded by MPI_LIMIT seconds: pml ob1 with
#                            btl tcp, or (MPI_TRANSPORT=ucx) pml ucx over UCX's TCP transport
#   slurm_up                 munged, slurmctld (head) and one slurmd per host; waits for idle
#   on_head CMD...           CMD on the head node with SLURM_CONF set (Slurm clients, jobs/submit)
#   attempt_host LOG K       the host of attempt K in a job's log (jobs/templates/run.sh's "attempt K on HOST: ...")
#   host_kill HOST           HOST dies: its cable is cut, every process on it is killed
#   host_alive HOST          whether HOST's namespace still has a network
#   cluster_down             everything stopped and removed (the EXIT trap calls it)
#
# By hand (a cluster that outlives the shell; see tests/cluster/README.md):
#   bash tests/cluster/lib.sh up K [slurm]   prints CLUSTER_BASE and how to use it
#   bash tests/cluster/lib.sh down BASE      stops it

CLUSTER_SUBNET=10.199.0
CLUSTER_HEAD=nqc-head
MPI_LIMIT=${MPI_LIMIT:-150}  # seconds for one mpirun: a hang fails the check, not the whole test
CLUSTER_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

cluster_log() { echo "# cluster: $*"; }

# cluster_require: exit 77 with the reason unless this can make network namespaces.
cluster_require() {
  if [[ $(id -u) -ne 0 ]]; then
    echo "SKIP: the simulated cluster needs root (network namespaces, bind mounts, Slurm as root)"
    exit 77
  fi
  local probe err
  probe=nqc-probe-$$-$RANDOM
  if ! err=$(ip netns add "$probe" 2>&1); then
    echo "SKIP: ip netns is not available here: ${err:-ip netns add failed}"
    exit 77
  fi
  ip netns del "$probe" 2>/dev/null
  local bin
  for bin in nsenter unshare timeout setsid; do
    command -v "$bin" >/dev/null || { echo "SKIP: $bin is not installed (util-linux, coreutils)"; exit 77; }
  done
}

# cluster_ns HOST: the namespace of HOST in this cluster.
cluster_ns() { echo "nqc-$CLUSTER_ID-${1#nqc-}"; }

# cluster_addr HOST: its address on the cluster's bridge.
cluster_addr() {
  if [[ $1 == "$CLUSTER_HEAD" ]]; then echo "$CLUSTER_SUBNET.2"; else echo "$CLUSTER_SUBNET.$((10 + ${1#nqc-h}))"; fi
}

# cluster_write_bin: the per-cluster scripts bin/onhost, bin/nsrsh, bin/slurm (the cluster's
# id and directories written into them, so they work from any shell and any host).
cluster_write_bin() {
  mkdir -p "$CLUSTER_BASE/bin"
  cat >"$CLUSTER_BASE/bin/onhost" <<EOF
#!/bin/bash
# onhost HOST CMD...: run CMD on HOST of the simulated cluster $CLUSTER_ID (written by tests/cluster/lib.sh):
# its network namespace, host name, /etc/hosts, node-local /tmp and /dev/shm; all else shared.
h=\${1:?usage: onhost HOST CMD...}; shift
case \$h in nqc-head|nqc-h[0-9]|nqc-h[0-9][0-9]) ;; *) echo "onhost: no host \$h in cluster $CLUSTER_ID" >&2; exit 255 ;; esac
ns=nqc-$CLUSTER_ID-\${h#nqc-}
if [ ! -e "/run/netns/\$ns" ] || [ -e "$CLUSTER_BASE/dead/\$h" ]; then echo "onhost: \$h is down (cluster $CLUSTER_ID)" >&2; exit 255; fi
[ \$# -gt 0 ] || set -- /bin/bash
# shellcheck disable=SC2016 # expanded by the inner shell
exec nsenter --net="/run/netns/\$ns" unshare --mount --uts --propagation private -- /bin/sh -c \\
  'mount --bind "\$1" /etc/hosts && mount --bind "\$2/\$3" /tmp && mount --bind "\$2/\$3.shm" /dev/shm && hostname "\$3" && shift 3 && exec "\$@"' \\
  onhost "$CLUSTER_BASE/etc/hosts" "$CLUSTER_BASE/local" "\$h" "\$@"
EOF
  cat >"$CLUSTER_BASE/bin/nsrsh" <<EOF
#!/bin/bash
# Open MPI rsh agent of the simulated cluster $CLUSTER_ID: "nsrsh [ssh options] HOST COMMAND..." runs
# COMMAND on HOST through a shell with a clean environment, as ssh would run it remotely.
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do case \$1 in -x|-T|-q|-n|-t|-a|-A|-4|-6) shift ;; *) shift 2 ;; esac; done
h=\$1; shift
exec "$CLUSTER_BASE/bin/onhost" "\$h" env -i PATH=$CLUSTER_PATH HOME=/root /bin/sh -c "\$*"
EOF
  cat >"$CLUSTER_BASE/bin/slurm" <<EOF
#!/bin/bash
# slurm CMD...: a Slurm client of the simulated cluster $CLUSTER_ID, run on its head node.
exec "$CLUSTER_BASE/bin/onhost" $CLUSTER_HEAD env SLURM_CONF="$CLUSTER_BASE/slurm/slurm.conf" "\$@"
EOF
  chmod 0755 "$CLUSTER_BASE"/bin/*
}

# cluster_up K: the head node and K hosts (see the top of this file).
cluster_up() {
  local k=$1 i h ns hub parent
  parent=${NQC_CLUSTER_PARENT:-/var/tmp}
  CLUSTER_BASE=$(mktemp -d "$parent/nqc-cluster.XXXXXX") || { echo "cannot create a directory in $parent" >&2; exit 1; }
  CLUSTER_BASE=$(cd "$CLUSTER_BASE" && pwd -P)
  case $CLUSTER_BASE/ in /tmp/*) echo "cluster_up: $CLUSTER_BASE is under /tmp (node-local on the hosts)" >&2; exit 1 ;; esac
  chmod 0755 "$CLUSTER_BASE"  # munged (user munge) must reach its socket and key below it
  CLUSTER_ID=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
  CLUSTER_HOSTS=()
  for ((i = 0; i < k; i++)); do CLUSTER_HOSTS+=("nqc-h$i"); done
  WORK=$CLUSTER_BASE/work
  ONHOST=$CLUSTER_BASE/bin/onhost
  NSRSH=$CLUSTER_BASE/bin/nsrsh
  mkdir -p "$WORK" "$CLUSTER_BASE"/{etc,local,dead}
  printf 'CLUSTER_ID=%s\nCLUSTER_K=%s\nCLUSTER_OWNER=%s\n' "$CLUSTER_ID" "$k" "$$" >"$CLUSTER_BASE/cluster.env"
  # From here on, whatever happens, the cluster is stopped.
  if [[ ${CLUSTER_DETACHED:-0} != 1 ]]; then  # (lib.sh up: a cluster that outlives its shell)
    trap cluster_exit EXIT
    trap 'exit 130' INT TERM HUP
    cluster_watchdog
  fi

  {
    echo "127.0.0.1 localhost"
    echo "$(cluster_addr "$CLUSTER_HEAD") $CLUSTER_HEAD"
    for h in "${CLUSTER_HOSTS[@]}"; do echo "$(cluster_addr "$h") $h"; done
  } >"$CLUSTER_BASE/etc/hosts"
  for h in "$CLUSTER_HEAD" "${CLUSTER_HOSTS[@]}"; do
    mkdir -p "$CLUSTER_BASE/local/$h" "$CLUSTER_BASE/local/$h.shm"
    chmod 1777 "$CLUSTER_BASE/local/$h" "$CLUSTER_BASE/local/$h.shm"
  done
  cluster_write_bin

  hub=$(cluster_ns "$CLUSTER_HEAD")
  echo "$hub" >>"$CLUSTER_BASE/namespaces"
  ip netns add "$hub" || { echo "cluster_up: ip netns add $hub failed" >&2; exit 1; }
  ip -n "$hub" link set lo up
  ip -n "$hub" link add br0 type bridge
  ip -n "$hub" addr add "$(cluster_addr "$CLUSTER_HEAD")/24" dev br0
  ip -n "$hub" link set br0 up
  for h in "${CLUSTER_HOSTS[@]}"; do
    ns=$(cluster_ns "$h")
    echo "$ns" >>"$CLUSTER_BASE/namespaces"
    ip netns add "$ns" || { echo "cluster_up: ip netns add $ns failed" >&2; exit 1; }
    # The veth pair is made in the hub and its peer put straight into the host: no interface
    # of the machine's own namespace is ever created or touched.
    ip -n "$hub" link add "veth-${h#nqc-}" type veth peer name eth0 netns "$ns"
    ip -n "$hub" link set "veth-${h#nqc-}" master br0 up
    ip -n "$ns" addr add "$(cluster_addr "$h")/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    # A host that died (host_kill) is found unreachable in about a second, not after the
    # kernel's default neighbour probing (5 s delay, then 3 probes a second apart per attempt).
    nsenter --net="/run/netns/$ns" sysctl -q -w net.ipv4.neigh.eth0.delay_first_probe_time=1 \
      net.ipv4.neigh.eth0.ucast_solicit=2 net.ipv4.neigh.eth0.mcast_solicit=2 net.ipv4.neigh.eth0.retrans_time_ms=300
  done
  # The bridge forwards once its ports leave the listening state (no STP: at once); check
  # that every host answers on its address before a test relies on it.
  local reach=0
  for _ in $(seq 1 100); do
    reach=1
    for h in "${CLUSTER_HOSTS[@]}"; do
      # Nothing listens on port 9: "connection refused" proves the path, a timeout does not.
      "$ONHOST" "$h" timeout 2 bash -c "exec 3<>/dev/tcp/$(cluster_addr "$CLUSTER_HEAD")/9" 2>&1 | grep -q 'Connection refused' || reach=0
    done
    ((reach)) && break
    sleep 0.1
  done
  ((reach)) || { echo "cluster_up: the hosts cannot reach the head node over the bridge" >&2; exit 1; }
  cluster_log "$k hosts up (id $CLUSTER_ID, ${CLUSTER_HOSTS[*]}, head $CLUSTER_HEAD), shared files in $CLUSTER_BASE"
  local mca
  mca=$(env | grep -E '^OMPI_MCA_(osc|btl|pml)=' | tr '\n' ' ')
  [[ -z $mca ]] || cluster_log "note: from the environment (passed on to every rank): $mca"
}

# cluster_shared PATH: PATH (absolute) when the hosts see it (not under /tmp), else a copy of
# it (file or directory) under CLUSTER_BASE/shared.
cluster_shared() {
  local p
  p=$(readlink -f "$1")
  case $p/ in
    /tmp/*)
      mkdir -p "$CLUSTER_BASE/shared"
      cp -a "$p" "$CLUSTER_BASE/shared/" && echo "$CLUSTER_BASE/shared/$(basename "$p")"
      ;;
    *) echo "$p" ;;
  esac
}

# cluster_shared_repo REPO: REPO when the hosts see it, else a copy under CLUSTER_BASE of what
# the jobs read from it (jobs/, analysis/, configs/): jobs/submit finds its templates and the
# aggregation job the analysis package beside itself.
cluster_shared_repo() {
  local r d
  r=$(readlink -f "$1")
  case $r/ in
    /tmp/*)
      mkdir -p "$CLUSTER_BASE/shared/repo"
      for d in jobs analysis configs; do [[ -e $r/$d ]] && cp -a "$r/$d" "$CLUSTER_BASE/shared/repo/"; done
      echo "$CLUSTER_BASE/shared/repo"
      ;;
    *) echo "$r" ;;
  esac
}

# cluster_pids NS: the processes in network namespace NS.
cluster_pids() { ip netns pids "$1" 2>/dev/null; }

# cluster_kill_ns SIGNAL NS...: every process of the namespaces NS... gets SIGNAL (TERM or
# KILL); whatever is left after 5 s gets SIGKILL, again until none is left (a process that
# forked while being killed included); 20 s at most.
cluster_kill_ns() {
  local sig=$1 ns pids i
  shift
  for ((i = 0; i < 200; i++)); do
    pids=$(for ns in "$@"; do cluster_pids "$ns"; done)
    [[ -z $pids ]] && return 0
    # shellcheck disable=SC2086 # a list of pids
    if [[ $sig == KILL ]] || ((i >= 50)); then kill -KILL $pids 2>/dev/null
    elif ((i == 0)); then kill -TERM $pids 2>/dev/null
    fi
    sleep 0.1
  done
  echo "cluster: processes left in $*: ${pids//$'\n'/ }" >&2
  return 1
}

# cluster_down [BASE]: every process of the cluster's namespaces stopped (SIGTERM, then
# SIGKILL), the namespaces deleted (their interfaces and the bridge with them), the shared
# files removed (kept with NQC_CLUSTER_KEEP=1, for a look at the logs).
cluster_down() {
  local base=${1:-${CLUSTER_BASE:-}} ns namespaces=()
  [[ -n $base && -f $base/cluster.env ]] || return 0
  [[ -f $base/namespaces ]] && mapfile -t namespaces <"$base/namespaces"
  cluster_kill_ns TERM "${namespaces[@]}"
  for ns in "${namespaces[@]}"; do
    [[ -e /run/netns/$ns ]] && ip netns del "$ns" 2>/dev/null
  done
  if [[ ${NQC_CLUSTER_KEEP:-0} == 1 ]]; then
    [[ -f $base/namespaces ]] && mv "$base/namespaces" "$base/namespaces.removed"
    echo "# cluster: stopped; files kept in $base (NQC_CLUSTER_KEEP=1)"
  else
    rm -rf "$base"
  fi
}

# cluster_exit: the EXIT trap: the cluster, TMP (tests/cli/lib.sh). The watchdog ends by
# itself once CLUSTER_BASE is gone.
cluster_exit() {
  local rc=$?
  cluster_down
  [[ -n ${TMP:-} ]] && rm -rf "$TMP"
  exit "$rc"
}

# cluster_watchdog: a detached process that stops the cluster once this shell has ended,
# however it ended (SIGKILL included), and ends by itself when the cluster is gone. Its own
# session (a kill of the test's process group spares it), and not a child of the test (forked
# from a subshell that exits at once), so that ctest, which kills a timed-out test's whole
# process tree, spares it too.
cluster_watchdog() {
  local self
  self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh
  # shellcheck disable=SC2016 # $1..$3 are the arguments of bash -c
  (setsid bash -c 'while kill -0 "$1" 2>/dev/null && [ -d "$3" ]; do sleep 1; done; [ -d "$3" ] && bash "$2" down "$3"' \
    watchdog "$$" "$self" "$CLUSTER_BASE" </dev/null >/dev/null 2>&1 &)
}

# host_kill HOST: HOST dies as a powered-off node does: its cable is cut first (no packet
# leaves it any more, no connection is closed politely), then every process on it (slurmd,
# slurmstepd, the ranks, ...) is killed with SIGKILL. onhost refuses it from then on.
host_kill() {
  local h=$1 ns hub
  ns=$(cluster_ns "$h")
  hub=$(cluster_ns "$CLUSTER_HEAD")
  : >"$CLUSTER_BASE/dead/$h"
  ip -n "$hub" link del "veth-${h#nqc-}" 2>/dev/null
  cluster_kill_ns KILL "$ns"
}

# host_alive HOST: HOST still has its network (host_kill not called).
host_alive() { [[ ! -e $CLUSTER_BASE/dead/$1 ]] && ip -n "$(cluster_ns "$1")" link show eth0 >/dev/null 2>&1; }

# mpirun_hosts SPEC NP ARGS...: `mpirun -np NP ARGS...` started on nqc-h0, its ranks on the hosts
# of SPEC (mpirun's --host, e.g. nqc-h0:2,nqc-h1:2) reached through nsrsh, over TCP only
# (btl tcp,self on eth0, pml ob1: what an Ethernet cluster without RDMA has), bounded by
# MPI_LIMIT seconds. Open MPI refuses root without OMPI_ALLOW_RUN_AS_ROOT*.
mpirun_hosts() {
  local spec=$1 np=$2 transport
  shift 2
  if [[ ${MPI_TRANSPORT:-tcp} == ucx ]]; then  # Open MPI's pml ucx over UCX's own TCP transport
    transport=(--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca osc ^ucx
      -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=eth0 -x UCX_WARN_UNUSED_ENV_VARS=n)
  else
    transport=(--mca btl tcp,self --mca btl_tcp_if_include eth0 --mca pml ob1)
  fi
  timeout -k 10 "$MPI_LIMIT" "$ONHOST" nqc-h0 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --mca plm_rsh_agent "$NSRSH" --mca plm_rsh_no_tree_spawn 1 --mca oob_tcp_if_include eth0 \
    "${transport[@]}" --host "$spec" -np "$np" "$@"
}

# slurm_up: a Slurm cluster on the hosts: munged (a key and socket of this cluster) and
# slurmctld on the head node, one slurmd per host (2 CPUs each, whatever the machine has:
# config_overrides). Node failures are noticed fast (SlurmdTimeout 10 s) and a batch job on a
# failed node is requeued (JobRequeue, jobs/submit's --requeue), eligible again after
# cred_expire (10 s). LLN spreads jobs over the least loaded hosts (an array's tasks on
# different hosts). Exits 1 (a failure, not a skip) when it does not come up in 60 s.
slurm_up() {
  local s=$CLUSTER_BASE/slurm m=$CLUSTER_BASE/munge h bin nodes=""
  for bin in /usr/sbin/munged /usr/sbin/mungekey /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sinfo /usr/bin/sbatch; do
    [[ -x $bin ]] || { echo "slurm_up: $bin is not installed (apt-get install slurmctld slurmd slurm-client munge)" >&2; exit 1; }
  done
  id munge >/dev/null 2>&1 || { echo "slurm_up: no user munge (install the munge package)" >&2; exit 1; }
  mkdir -p "$s"/{state,log} "$m"
  for h in "${CLUSTER_HOSTS[@]}"; do mkdir -p "$s/spool/$h"; done
  chown munge: "$m" && chmod 0700 "$m"
  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/mungekey -c -k "$m/munge.key" >"$s/log/mungekey.log" 2>&1 ||
    { echo "slurm_up: mungekey failed: $(tail -n 1 "$s/log/mungekey.log")" >&2; exit 1; }
  chmod 0755 "$m"
  "$ONHOST" "$CLUSTER_HEAD" setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged -F --force \
    --socket="$m/munge.socket" --key-file="$m/munge.key" --pid-file="$m/munged.pid" --seed-file="$m/munged.seed" \
    --log-file="$s/log/munged.log" </dev/null >>"$s/log/munged.out" 2>&1 &
  disown  # stopped with the cluster (its namespace), not waited for: no "Killed" notices
  for _ in $(seq 1 100); do [[ -S $m/munge.socket ]] && break; sleep 0.05; done
  [[ -S $m/munge.socket ]] || { echo "slurm_up: munged did not start: $(tail -n 2 "$s/log/munged.log" 2>/dev/null)" >&2; exit 1; }

  for h in "${CLUSTER_HOSTS[@]}"; do
    nodes+="NodeName=$h NodeAddr=$(cluster_addr "$h") CPUs=2 RealMemory=1000 State=UNKNOWN"$'\n'
  done
  cat >"$s/slurm.conf" <<EOF
# Written by tests/cluster/lib.sh: the Slurm of simulated cluster $CLUSTER_ID.
ClusterName=nqccluster
SlurmctldHost=$CLUSTER_HEAD($(cluster_addr "$CLUSTER_HEAD"))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire: also how long a requeued job waits before it may start again (default 120 s).
AuthInfo=socket=$m/munge.socket,cred_expire=10
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=2
# The nodes' CPUs as written here, whatever the machine has (2 CPUs per simulated host).
SlurmdParameters=config_overrides
MinJobAge=5
EnforcePartLimits=ALL
JobRequeue=1
KillWait=5
OverTimeLimit=0
MailProg=/bin/true
ReturnToService=2
# A host that stops answering is DOWN after SlurmdTimeout; its jobs are then killed, and batch
# jobs that may be requeued (jobs/submit's --requeue) are requeued.
SlurmdTimeout=10
MessageTimeout=5
TCPTimeout=2
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool/%n
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd-%n.pid
SlurmctldLogFile=$s/log/slurmctld.log
SlurmdLogFile=$s/log/slurmd-%n.log
${nodes}PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP LLN=YES
EOF
  SLURM_CONF=$s/slurm.conf
  "$ONHOST" "$CLUSTER_HEAD" env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmctld -D -c -f "$SLURM_CONF" \
    </dev/null >>"$s/log/slurmctld.out" 2>&1 &
  disown
  for h in "${CLUSTER_HOSTS[@]}"; do
    "$ONHOST" "$h" env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmd -D -N "$h" -f "$SLURM_CONF" \
      </dev/null >>"$s/log/slurmd-$h.out" 2>&1 &
    disown
  done
  local state="" want
  want=$(for h in "${CLUSTER_HOSTS[@]}"; do echo "$h:idle"; done)
  for _ in $(seq 1 240); do  # up to 60 s; a few seconds here
    state=$(on_head timeout 10 sinfo -h -N -o '%N:%t' 2>/dev/null | sort)
    [[ $state == "$want" ]] && break
    sleep 0.25
  done
  if [[ $state != "$want" ]]; then
    echo "slurm_up: the nodes are not idle after 60 s: $(echo "$state" | tr '\n' ' '); slurmctld: $(tail -n 3 "$s/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')" >&2
    exit 1
  fi
  cluster_log "slurm up: $(echo "$state" | tr '\n' ' ')(slurmctld on $CLUSTER_HEAD, SLURM_CONF=$SLURM_CONF)"
}

# on_head CMD...: CMD on the head node with the cluster's SLURM_CONF (Slurm clients, jobs/submit).
on_head() { "$ONHOST" "$CLUSTER_HEAD" env SLURM_CONF="$CLUSTER_BASE/slurm/slurm.conf" "$@"; }
attempt_host() { sed -n "s/.* attempt $2 on \([^:]*\): .*/\1/p" "$1" 2>/dev/null | head -n 1; }

# step DESC: a line that separates the parts of a test in its output, with the time of the
# previous part (for the reader; nothing is checked against it).
step() {
  echo "# ---- $* ($(date -u +%H:%M:%S); previous step took $((SECONDS - ${STEP_START:-0})) s)"
  STEP_START=$SECONDS
}

# By hand: `bash lib.sh up K [slurm]` / `bash lib.sh down BASE` (the watchdog uses `down`).
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -u
  case ${1:-} in
    up)
      k=${2:-3}
      cluster_require >&2
      CLUSTER_DETACHED=1
      trap 'cluster_down' EXIT  # until it is up
      cluster_up "$k"
      [[ ${3:-} == slurm ]] && slurm_up
      trap - EXIT
      cat <<EOF
CLUSTER_BASE=$CLUSTER_BASE
# run a command on a host:       $ONHOST nqc-h1 hostname
# mpirun across the hosts:       $ONHOST nqc-h0 mpirun --allow-run-as-root --mca plm_rsh_agent $NSRSH --host nqc-h0:2,nqc-h1:2 -np 4 hostname
# Slurm clients (with slurm):    $CLUSTER_BASE/bin/slurm sinfo -N
# shared scratch space:          $WORK   (not /tmp: node-local on the hosts)
# stop it:                       bash $(cd "$(dirname "$0")" && pwd)/lib.sh down $CLUSTER_BASE
EOF
      ;;
    down)
      [[ -n ${2:-} && -f $2/cluster.env ]] || { echo "usage: $0 down CLUSTER_BASE (a directory made by '$0 up')" >&2; exit 1; }
      cluster_down "$(cd "$2" && pwd -P)"
      ;;
    *)
      echo "usage: $0 up K [slurm] | down CLUSTER_BASE" >&2
      exit 1
      ;;
  esac
fi
