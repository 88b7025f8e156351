#!/usr/bin/env bash
# Installs the Debian 12 packages tilesim needs, only those missing (idempotent).
# Runs as root on a fresh machine (spec 60 §1); 'apt-get update' first, as apt needs it.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build ccache clang-14 libclang-rt-14-dev clang-format
  libgtest-dev libgmock-dev libbenchmark-dev libhwy-dev libfmt-dev libcli11-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-torch
  libopenblas-dev pkg-config libmpfr-dev libgmp-dev
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
