# Sourced by the scripts: lets Open MPI run as root (containers, CI) and quiets its CMA
# warning. Harmless for other users.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
