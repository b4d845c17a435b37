#!/usr/bin/env python3
"""rpath_tag.py: turn an ELF file's DT_RUNPATH entry into a DT_RPATH one, in place.

scripts/gpu/prepare.sh gives the kit's binaries the search path
$ORIGIN/../lib. As a RUNPATH it would serve only the binary's own
dependencies; the kit's libraries have dependencies of their own (libpng
needs libz, spdlog needs fmt) that must come from the kit too, and only an
executable's RPATH is searched for those. Same string, other tag: the
dynamic section's entry changes from DT_RUNPATH (29) to DT_RPATH (15).
Standard library only (the machine that makes the kit may lack patchelf).

  rpath_tag.py FILE...     (64-bit little-endian ELF; exit 1 when a file has no DT_RUNPATH)
"""
import struct
import sys

DT_NULL, DT_RPATH, DT_RUNPATH, PT_DYNAMIC = 0, 15, 29, 2


def runpath_to_rpath(path):
    with open(path, "r+b") as f:
        elf = f.read()
        if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
            sys.exit(f"error: {path}: not a 64-bit little-endian ELF file")
        phoff, = struct.unpack_from("<Q", elf, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
        for i in range(phnum):
            p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", elf, phoff + i * phentsize)
            if p_type != PT_DYNAMIC:
                continue
            for at in range(p_offset, p_offset + p_filesz, 16):
                tag, = struct.unpack_from("<q", elf, at)
                if tag == DT_NULL:
                    break
                if tag == DT_RUNPATH:
                    f.seek(at)
                    f.write(struct.pack("<q", DT_RPATH))
                    return
    sys.exit(f"error: {path}: no DT_RUNPATH entry to turn into DT_RPATH")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        runpath_to_rpath(name)
