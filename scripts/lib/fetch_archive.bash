# fetch_archive.bash: the download both data-set scripts share (sourced).
#
# fetch_archive NAME URL MD5 SIZE FOLDER MARKER [HINT]
#   NAME    what it is, for messages ("CIFAR-10")
#   URL     the archive's address; it is kept as data/<its file name>
#   MD5     the archive's md5, checked before it is unpacked
#   SIZE    its size, for the "downloading" line ("163 MB")
#   FOLDER  the folder the archive unpacks into data/
#   MARKER  a file in FOLDER whose presence means it is there already
#   HINT    one more line for the no-network message (may be empty)
# Uses curl or wget; without network it says so and how to use a copy that
# is already somewhere else; a bad md5 removes the archive.
fetch_archive() {
  local name=$1 url=$2 md5=$3 size=$4 folder=$5 marker=$6 hint=${7:-}
  local dest=data
  local archive="$dest/${url##*/}"
  if [[ -f "$dest/$folder/$marker" ]]; then
    echo "$name is already in $dest/$folder"
    return 0
  fi
  mkdir -p "$dest"
  if ! command -v curl >/dev/null && ! command -v wget >/dev/null; then
    echo "error: neither curl nor wget is installed (apt-get install curl)" >&2
    return 1
  fi
  if [[ -f "$archive" ]]; then
    echo "using $archive"
  else
    echo "downloading $url ($size)"
    if ! { command -v curl >/dev/null && curl -fL --retry 3 -o "$archive.part" "$url"; } &&
      ! { command -v wget >/dev/null && wget -O "$archive.part" "$url"; }; then
      rm -f "$archive.part"
      {
        echo "error: could not download $url (no network here?)."
        echo "If a copy of the binary data set exists elsewhere, point cifar-train at it:"
        echo "  cifar-train --data /path/to/$folder ..."
        [[ -z $hint ]] || echo "  $hint"
        echo "or copy ${url##*/} into $dest/ and run this script again."
      } >&2
      return 1
    fi
    mv "$archive.part" "$archive"
  fi
  echo "$md5  $archive" | md5sum -c - || {
    echo "error: md5 mismatch, download again" >&2
    rm -f "$archive"
    return 1
  }
  tar -xzf "$archive" -C "$dest"
  echo "$name unpacked into $dest/$folder"
}
