#!/bin/bash
# The start of both batch scripts (jobs/templates/run.sh, aggregate.sh), after the #SBATCH
# lines, the parameters and the set-up lines that jobs/submit writes before it.

# say MESSAGE: one log line "[UTC time] nqc job JOBID: MESSAGE" (array tasks: ARRAYID_I = JOBID).
say() { printf '[%s] nqc job %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${SLURM_ARRAY_JOB_ID:+${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID} = }${SLURM_JOB_ID:-?}" "$*"; }
if [[ $(id -u) -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
