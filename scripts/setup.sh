#!/usr/bin/env bash
# setup.sh: install everything cifar-train needs to build and test, idempotently.
#
#   - Debian packages (apt-get, only those missing): compiler, CMake, Ninja,
#     CLI11, spdlog/fmt, Catch2 (v2), nlohmann-json, OpenSSL's libcrypto
#     (libssl-dev: SHA-256 of checkpoints), clang for the fuzzers.
#   - LibTorch 2.11.0: kept if Torch_DIR or CMAKE_PREFIX_PATH already points at
#     one, or if a python3 on the PATH already imports torch 2.x (as on the GPU
#     machines); otherwise the PyPI wheel torch==2.11.0 (which carries the whole
#     C++ library) goes into a virtual environment in a per-user cache folder
#     outside the clone, so CI and later clones reuse it:
#     ${XDG_CACHE_HOME:-~/.cache}/cifar-train/torch-2.11.0
#
# It prints what it chose; CMake (cmake/LocateTorch.cmake) looks in the same
# places in the same order. Exits non-zero naming whatever it could not get.
set -euo pipefail

TORCH_VERSION=2.11.0
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/cifar-train"
venv="$cache_root/torch-$TORCH_VERSION"

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

# --- Debian packages --------------------------------------------------------
packages=(g++ cmake ninja-build pkg-config libcli11-dev libspdlog-dev catch2 nlohmann-json3-dev
          libssl-dev clang libclang-rt-dev python3 python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# python3 from pyenv or elsewhere (not Debian's) is fine if it can make a venv.
if [[ " ${missing[*]} " == *" python3 "* || " ${missing[*]} " == *" python3-venv "* ]] &&
   command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null; then
  missing=("${missing[@]/python3-venv}"); missing=("${missing[@]/python3}")
fi
# g++/cmake installed outside dpkg also count.
for tool in g++ cmake; do
  if command -v "$tool" >/dev/null; then missing=("${missing[@]/$tool}"); fi
done
read -r -a missing <<<"${missing[*]}"
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq || die "apt-get update failed; check the network or your apt sources"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    || die "could not install Debian packages: ${missing[*]}"
else
  say "Debian packages: all present"
fi

# --- LibTorch ---------------------------------------------------------------
torch_prefix_of() {  # python -> prints torch's CMake prefix if it has torch 2.x
  "$1" - <<'PY' 2>/dev/null
import torch, torch.utils
assert int(torch.__version__.split(".")[0]) >= 2
print(torch.utils.cmake_prefix_path)
PY
}

if [[ -n "${Torch_DIR:-}" ]]; then
  [[ -f "$Torch_DIR/TorchConfig.cmake" ]] || die "Torch_DIR=$Torch_DIR holds no TorchConfig.cmake"
  say "LibTorch: given by Torch_DIR=$Torch_DIR"
  exit 0
fi
IFS=':;' read -r -a prefixes <<<"${CMAKE_PREFIX_PATH:-}"
for p in "${prefixes[@]}"; do
  if [[ -n "$p" && -f "$p/Torch/TorchConfig.cmake" ]]; then
    say "LibTorch: given by CMAKE_PREFIX_PATH ($p)"
    exit 0
  fi
done
if [[ -x "$venv/bin/python" ]] && prefix=$(torch_prefix_of "$venv/bin/python"); then
  say "LibTorch: torch $("$venv/bin/python" -c 'import torch;print(torch.__version__)' 2>/dev/null) in $venv (cached)"
  exit 0
fi
if command -v python3 >/dev/null && prefix=$(torch_prefix_of python3); then
  say "LibTorch: the torch of $(command -v python3) ($prefix)"
  exit 0
fi

say "LibTorch: installing torch==$TORCH_VERSION from PyPI into $venv (a few GB, once per machine)"
mkdir -p "$cache_root"
rm -rf "$venv.partial"
python3 -m venv "$venv.partial" || die "python3 -m venv failed; install python3-venv"
"$venv.partial/bin/python" -m pip install -q --upgrade pip \
  || die "pip could not reach PyPI to upgrade itself"
"$venv.partial/bin/python" -m pip install -q "torch==$TORCH_VERSION" numpy \
  || die "could not install torch==$TORCH_VERSION from PyPI (network? disk space in $cache_root?)"
mv "$venv.partial" "$venv"   # only a complete environment gets the real name
# A moved venv keeps working through bin/python; pip is always run as 'python -m pip'.
prefix=$(torch_prefix_of "$venv/bin/python") || die "torch installed but does not import from $venv"
say "LibTorch: torch $TORCH_VERSION installed in $venv ($prefix)"
