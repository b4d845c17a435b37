#!/usr/bin/env bash
# download_cifar10.sh: fetch the official CIFAR-10 binary archive into data/.
#
# Downloads cifar-10-binary.tar.gz from its home page, checks its md5 and
# unpacks data/cifar-10-batches-bin. Where there is no network it says so and
# how to use a copy that is already somewhere else.
set -euo pipefail
cd "$(dirname "$0")/.."
url="https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
md5="c32a1d4ab5d03f1284b67883e8d87530"
dest=data
archive="$dest/cifar-10-binary.tar.gz"

if [[ -f "$dest/cifar-10-batches-bin/test_batch.bin" ]]; then
  echo "CIFAR-10 is already in $dest/cifar-10-batches-bin"
  exit 0
fi
mkdir -p "$dest"
if ! command -v curl >/dev/null && ! command -v wget >/dev/null; then
  echo "error: neither curl nor wget is installed (apt-get install curl)" >&2
  exit 1
fi
if [[ -f "$archive" ]]; then
  echo "using $archive"
else
echo "downloading $url (163 MB)"
if ! { command -v curl >/dev/null && curl -fL --retry 3 -o "$archive.part" "$url"; } &&
   ! { command -v wget >/dev/null && wget -O "$archive.part" "$url"; }; then
  rm -f "$archive.part"
  cat >&2 <<MSG
error: could not download $url (no network here?).
If a copy of the binary data set exists elsewhere, point cifar-train at it:
  cifar-train --data /path/to/cifar-10-batches-bin ...
  export CIFAR10_DIR=/path/to/cifar-10-batches-bin
or copy cifar-10-binary.tar.gz into $dest/ and run this script again.
MSG
  exit 1
fi
mv "$archive.part" "$archive"
fi
echo "$md5  $archive" | md5sum -c - || { echo "error: md5 mismatch, download again" >&2; rm -f "$archive"; exit 1; }
tar -xzf "$archive" -C "$dest"
echo "CIFAR-10 unpacked into $dest/cifar-10-batches-bin"
