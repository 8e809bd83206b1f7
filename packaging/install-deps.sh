#!/usr/bin/env bash
# Installs every build, test and runtime dependency of Reprint from Debian 12 packages.
# Safe to re-run: packages already present are left alone and apt is only asked for
# what is missing. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev qt6-charts-dev libqt6charts6 qt6-qpa-plugins
  libgl-dev libxkbcommon-dev
  libpq-dev postgresql-15 postgresql-client-15
  libboost-dev
  libyaml-cpp-dev
  xvfb xauth fonts-dejavu-core
  poppler-utils
  file desktop-file-utils appstream debootstrap
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# Debian's postgresql package creates and starts a system cluster on port 5432; Reprint
# never uses it (every cluster it runs is private, on a Unix socket, no TCP).
