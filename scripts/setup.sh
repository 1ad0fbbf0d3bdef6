#!/usr/bin/env bash
# Installs the Debian 12 packages nqc needs (only those missing; quiet when all are there)
# and builds nqc with its tests in build/: CMake preset NQC_PRESET (CMakePresets.json; default
# release; scripts/test.sh uses ci, Release with -Werror), build directory NQC_BUILD_DIR
# (default build). Idempotent. Run as root on a fresh machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PACKAGES=(
  build-essential cmake git pkg-config
  openmpi-bin libopenmpi-dev            # MPI ranks (mpirun) and headers
  libhdf5-dev                           # result files (serial HDF5 C API)
  libspdlog-dev nlohmann-json3-dev libcli11-dev
  libxxhash-dev                         # XXH64 (config hashes, instance files, text attributes' checksum)
  libcadical-dev cadical                # engine sat (library); the CaDiCaL binary for bench/csplib.sh
  libgtest-dev                          # unit tests
  clang libclang-rt-14-dev              # tests/fuzz: libFuzzer, ASan + UBSan (scripts/fuzz-build.sh)
  python3 python3-h5py python3-pandas python3-numpy   # Debian's Python (the analysis reads result files through nqc rows; h5py: tests, bench/)
  python3-scipy python3-statsmodels python3-matplotlib python3-tabulate python3-pytest   # analysis/
  python3-jsonschema                    # tests: configs/ schema checked by the reference validator
  slurmctld slurmd slurm-client munge   # jobs/ and its test against a real single-node Slurm
  procps gzip tar                       # pgrep, zcat, tar in the command-line tests
  help2man                              # the man page nqc.1, from nqc --help (src/cli/CMakeLists.txt)
  man-db groff-base                     # tests/cli/test_install.sh renders the installed man page
  shellcheck                            # tests/jobs/test_batch_script.sh checks the batch-script templates
  clang-format black flake8             # tests/format_check.sh: the sources' layout and lint
  bash-completion                       # loads the installed completion of nqc in new shells
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# NQC_SETUP_PACKAGES_ONLY=1: the packages only (scripts/nqc.def builds and installs itself).
if [[ ${NQC_SETUP_PACKAGES_ONLY:-0} == 1 ]]; then exit 0; fi

BUILD_DIR=${NQC_BUILD_DIR:-build}
cmake --preset "${NQC_PRESET:-release}" -B "$BUILD_DIR" >/dev/null
# Only errors and warnings are shown; a failed build fails here (with -Werror, a warning too).
echo "setup: building into $BUILD_DIR/ (log: $BUILD_DIR/build.log; 5 to 15 minutes the first time on 2 cores)" >&2
status=0
cmake --build "$BUILD_DIR" -j"$(nproc)" >"$BUILD_DIR/build.log" 2>&1 || status=$?
grep -E "(error|warning):|Error" "$BUILD_DIR/build.log" >&2 || true
if ((status != 0)); then
  echo "setup: build failed (log: $BUILD_DIR/build.log)" >&2
  exit 1
fi
