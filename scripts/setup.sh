#!/usr/bin/env bash
# Set-up for a fresh Debian 12 machine: installs the Debian packages the build, the tests and
# the benchmarks need (when run as root; otherwise prints the exact command), and the Python
# virtual environment for smrlab. Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

debian_packages=(
  g++ cmake ninja-build make git pkg-config
  clang libclang-rt-dev   # the TSan preset's compiler (a second compiler for the stress suites)
  libgtest-dev            # C++ unit and stress tests
  relacy-dev              # model checking of the reclaimers' memory orders
  nlohmann-json3-dev      # smrbench JSON records
  libhwloc-dev            # smrbench: the machine in each record, --pin on any topology
  libjemalloc2 libjemalloc-dev       # --allocator jemalloc
  libgoogle-perftools4 libtcmalloc-minimal4   # --allocator tcmalloc
  libmimalloc2.0          # --allocator mimalloc
  liburcu-dev libck-dev libcds-dev   # smrbench's external baselines (urcu_*, ck_epoch, cds_*)
  python3 python3-venv python3-pip   # smrlab
)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages. Run as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# smrlab's virtual environment, rebuilt when its pinned requirements change.
req=tools/smrlab/requirements.txt
stamp=.venv/.requirements.sha256
if [[ -f $req ]]; then
  want=$(sha256sum "$req" | cut -d' ' -f1)
  if [[ ! -x .venv/bin/python || ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
    echo "setup: preparing the Python environment (.venv) for smrlab"
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r "$req"
    echo "$want" > "$stamp"
  fi
fi
echo "setup: ok"
