#!/bin/bash
# The run job: nqc run on the job's ranks, stopped cleanly before the time limit and requeued
# until the plan is done. jobs/submit sets, before this part:
#   NQC, CONFIG, OUT   the nqc binary, the config and the results directory (absolute paths)
#   PARTS              1: the whole plan (--resume); K > 1: array task I runs nqc run --part I/K
#   LAUNCHER           auto (srun --mpi=pmix when Slurm has PMIx, else mpirun), srun or mpirun
#   GRACE              seconds between Slurm's SIGUSR1 (#SBATCH --signal=B:USR1@GRACE) and the limit
#   MAX_REQUEUES       requeues of one job before it gives up
#   EXIT_CODES         nqc's exit codes, NAME=CODE ... (nqc info --constants --json): EXIT[NAME] below
# The time-limit warning (SIGUSR1) stops nqc after its current case (interrupted) and the job
# requeues itself (scontrol requeue), up to MAX_REQUEUES times; the next attempt resumes from
# the shards on disk. SIGTERM (scancel, preemption) stops nqc the same way but does not
# requeue: submit the same command again to resume. A failure that a requeue would only repeat
# (engine_bug, io_error, out_of_memory) is not requeued and is logged with what to do.
set -uo pipefail
declare -A EXIT
for pair in $EXIT_CODES; do EXIT[${pair%=*}]=${pair#*=}; done
restarts=${SLURM_RESTART_COUNT:-0}
args=(run "$CONFIG" -o "$OUT")
if ((PARTS > 1)); then args+=(--part "$SLURM_ARRAY_TASK_ID/$PARTS"); else args+=(--resume); fi
if [[ $LAUNCHER == auto ]]; then
  if srun --mpi=list 2>&1 | grep -qw pmix; then LAUNCHER=srun; else LAUNCHER=mpirun; fi
fi
if [[ $LAUNCHER == srun ]]; then launch=(srun --mpi=pmix); else launch=(mpirun); fi

# SIGTERM to the nqc ranks makes each stop after its current case (interrupted). srun must not be
# signalled itself (it kills its tasks at once): scancel signals the tasks of this job's steps.
# mpirun gets SIGUSR1, which it forwards to its ranks (nqc stops on it too; mpirun then exits
# with interrupted, where SIGTERM would make it exit with bad_input).
warned=0 stopped=0 requeued=0 step="" signalled_at=0
stop_step() {
  [[ -n $step ]] || return 0
  signalled_at=$SECONDS
  if [[ $LAUNCHER == srun ]]; then
    scancel --signal=TERM "$SLURM_JOB_ID" 2>/dev/null || kill -TERM "$step" 2>/dev/null
  else
    kill -USR1 "$step" 2>/dev/null
  fi
}
# shellcheck disable=SC2317  # trap handlers: called through trap, not unreachable
on_usr1() {
  warned=1
  say "time limit in $GRACE s or less (SIGUSR1): nqc stops after its current case"
  stop_step
}
# shellcheck disable=SC2317  # as on_usr1
on_term() {
  ((requeued)) && return  # Slurm ends this attempt of a requeued job
  stopped=1
  say "SIGTERM (scancel, preemption or the time limit): nqc stops after its current case"
  stop_step
}
trap on_usr1 USR1
trap on_term TERM

rc=${EXIT[interrupted]}
if ((warned || stopped)); then
  say "signalled before nqc started"
else
  say "attempt $((restarts + 1)) on $(hostname): ${launch[*]} $NQC ${args[*]} (${SLURM_NTASKS:-1} task(s))"
  "${launch[@]}" "$NQC" "${args[@]}" &
  step=$!
  if ((warned || stopped)); then stop_step; fi  # a signal came before $step was known
  rc=0
  wait "$step" || rc=$?
  if kill -0 "$step" 2>/dev/null || ((rc > 128 && (warned || stopped))); then
    # A trap interrupted wait: nqc is stopping. Poll (traps run between polls), and signal
    # again every 10 s in case the first signal came before nqc could catch it.
    while kill -0 "$step" 2>/dev/null; do
      sleep 1 &
      wait $! || true
      if ((SECONDS - signalled_at >= 10)); then stop_step; fi
    done
    last=0
    wait "$step" 2>/dev/null || last=$?
    ((last == 127)) || rc=$last  # 127: wait had already collected the step's status
  fi
fi

if ((rc == EXIT[ok])); then
  say "nqc finished (exit $rc)"
  exit "$rc"
fi

# What nqc's exit code `$1` means for this job: its name, and what to do.
meaning() {
  local v name=""
  for v in "${!EXIT[@]}"; do if ((EXIT[$v] == $1)); then name=$v; fi; done
  case $1 in
    "${EXIT[bad_input]}") echo "$name: a config, file or results directory nqc refuses: see its error above" ;;
    "${EXIT[engine_bug]}") echo "$name: the composition is in $OUT/engine-bug-case-ID.txt" ;;
    "${EXIT[io_error]}") echo "$name: the system refused a read or write (a full disk, a quota, a read-only or unwritable directory): see its error above; make room, then submit the same command again to resume" ;;
    "${EXIT[out_of_memory]}") echo "$name: ask for more memory per task (e.g. --sbatch=--mem-per-cpu=4G) or fewer tasks per node, then submit the same command again to resume" ;;
    *) echo "${name:+$name: }see the log above" ;;
  esac
}
# A failure that another attempt would only repeat: not requeued, not "stopped".
repeats() { (($1 == EXIT[engine_bug] || $1 == EXIT[io_error] || $1 == EXIT[out_of_memory])); }

if ((warned && !stopped)) && ! repeats "$rc"; then
  if ((restarts >= MAX_REQUEUES)); then
    say "error: stopped at the time limit (exit $rc) after $restarts requeues (limit $MAX_REQUEUES): submit the same command again to resume"
    exit "${EXIT[interrupted]}"
  fi
  say "stopped at the time limit (exit $rc): requeueing; attempt $((restarts + 2)) resumes from the shards on disk"
  requeued=1
  if scontrol requeue "$SLURM_JOB_ID"; then exit "${EXIT[interrupted]}"; fi
  requeued=0
  say "error: scontrol requeue $SLURM_JOB_ID failed: submit the same command again to resume"
  exit "${EXIT[interrupted]}"
fi
if ((rc == EXIT[interrupted])) || { ((stopped)) && ! repeats "$rc"; }; then
  say "nqc stopped (exit $rc): a job requeued by Slurm (preemption) resumes by itself; else submit the same command again"
else
  say "nqc failed (exit $rc: $(meaning "$rc"))"
fi
exit "$rc"
