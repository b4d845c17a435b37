# hostile_pt.py KIND PATH: writes a .pt file that no state dict can be, for
# tests/cli/bad_weights.sh; plain Python (zipfile), no torch needed. KIND is
# deep, inflate, stride0 or bigpickle (see the end of this file).
import struct, sys, zipfile
def zip_pt(path, pickle, storages={}, deflate=False):
    """pickle: bytes, or (head, zeros, tail) written in chunks; storages: key -> bytes of zeros."""
    mode = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", mode) as z:
        def record(name, parts):
            with z.open("archive/" + name, "w", force_zip64=True) as f:
                for p in parts:
                    if isinstance(p, int):
                        for _ in range(p // (1 << 24)): f.write(bytes(1 << 24))
                        f.write(bytes(p % (1 << 24)))
                    else:
                        f.write(p)
        record("data.pkl", pickle if isinstance(pickle, tuple) else (pickle,))
        record("byteorder", (b"little",))
        for key, size in storages.items():
            record(f"data/{key}", (size,))
        record("version", (b"3\n",))
def s(x): return b"X" + struct.pack("<I", len(x)) + x.encode()
def i32(v): return b"J" + struct.pack("<i", v)
def tensor(key, numel, size, stride, offset=0):
    ref = b"(" + s("storage") + b"ctorch\nFloatStorage\n" + s(key) + s("cpu") + i32(numel) + b"tQ"
    return (b"ctorch._utils\n_rebuild_tensor_v2\n(" + ref + i32(offset) + i32(size) + b"\x85" +
            i32(stride) + b"\x85tR")
kind, path = sys.argv[1], sys.argv[2]
if kind == "deep":  # [[[[...]]]] 200,000 deep: 400 KB
    zip_pt(path, b"\x80\x02" + b"]" * 200000 + b"a" * 199999 + b".")
elif kind == "inflate":  # {"w": a tensor of 2^28 floats}: 1 GiB of zeros, 1 MB deflated
    zip_pt(path, b"\x80\x02}(" + s("w") + tensor("0", 1 << 28, 1 << 28, 1) + b"u.",
           {"0": 1 << 30}, deflate=True)
elif kind == "stride0":  # {"w": one float seen as 2^28 of them}
    zip_pt(path, b"\x80\x02}(" + s("w") + tensor("0", 1, 1 << 28, 0) + b"u.", {"0": 4})
elif kind == "bigpickle":  # a data.pkl of 1 GiB (one long string), 1 MB deflated
    n = 1 << 30
    zip_pt(path, (b"\x80\x02\x8d" + struct.pack("<Q", n), n, b"."), deflate=True)
