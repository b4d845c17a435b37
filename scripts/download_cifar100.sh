#!/usr/bin/env bash
# download_cifar100.sh: fetch the official CIFAR-100 binary archive into data/.
#
# Downloads cifar-100-binary.tar.gz from its home page, checks its md5 and
# unpacks data/cifar-100-binary (train.bin, test.bin, fine_label_names.txt,
# coarse_label_names.txt). Where there is no network it says so and how to
# use a copy that is already somewhere else. Then:
#   cifar-train --data data/cifar-100-binary ...   (--labels coarse: the 20 superclasses)
set -euo pipefail
cd "$(dirname "$0")/.."
url="https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz"
md5="03b5dce01913d631647c71ecec9e9cb8"
dest=data
archive="$dest/cifar-100-binary.tar.gz"

if [[ -f "$dest/cifar-100-binary/test.bin" ]]; then
  echo "CIFAR-100 is already in $dest/cifar-100-binary"
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
  echo "downloading $url (161 MB)"
  if ! { command -v curl >/dev/null && curl -fL --retry 3 -o "$archive.part" "$url"; } &&
    ! { command -v wget >/dev/null && wget -O "$archive.part" "$url"; }; then
    rm -f "$archive.part"
    cat >&2 <<MSG
error: could not download $url (no network here?).
If a copy of the binary data set exists elsewhere, point cifar-train at it:
  cifar-train --data /path/to/cifar-100-binary ...
or copy cifar-100-binary.tar.gz into $dest/ and run this script again.
MSG
    exit 1
  fi
  mv "$archive.part" "$archive"
fi
echo "$md5  $archive" | md5sum -c - || { echo "error: md5 mismatch, download again" >&2; rm -f "$archive"; exit 1; }
tar -xzf "$archive" -C "$dest"
echo "CIFAR-100 unpacked into $dest/cifar-100-binary"
