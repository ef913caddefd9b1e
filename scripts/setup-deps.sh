#!/usr/bin/env bash
# Installs the Debian bookworm packages mgen builds against, only those that are missing.
# Idempotent and quiet when everything is present, so every entry script can call it.
set -euo pipefail

packages=(
  cmake g++ ninja-build pkg-config clang-format
  libtomlplusplus-dev libfmt-dev libcli11-dev nlohmann-json3-dev catch2
  libboost-context-dev libmpich-dev mpich
  gnuplot-nox gfortran python3
  python3-jsonschema
  autoconf automake
  libotf2-trace-dev otf2-tools python3-otf2
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "mgen setup: installing missing packages: ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "mgen setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
