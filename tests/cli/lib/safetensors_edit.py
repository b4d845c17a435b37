# safetensors_edit.py IN OUT [EDIT...]: copies a .safetensors file with
# changes, for tests/cli/bad_weights.sh; plain Python, no torch needed.
#   meta:KEY=VALUE      sets a metadata string (VALUE @FILE: the file's text)
#   nan:NAME / inf:NAME the first value of F32 tensor NAME becomes NaN / inf
#   dtype:NAME=I32      relabels F32 tensor NAME as I32 (same bytes)
#   bool:NAME           replaces F32 tensor NAME with a BOOL one of its shape
#   rows:N              keeps the first N rows of the last layer (fc3.*, fc.*)
import json, math, struct, sys
src, dst, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
raw = open(src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
meta = header.pop("__metadata__", {})
tensors = {k: [v["dtype"], v["shape"], data[v["data_offsets"][0]:v["data_offsets"][1]]]
           for k, v in header.items()}
for e in edits:
    kind, _, arg = e.partition(":")
    if kind == "meta":
        k, _, v = arg.partition("=")
        meta[k] = open(v[1:]).read() if v.startswith("@") else v
    elif kind in ("nan", "inf"):
        t = tensors[arg]
        t[2] = struct.pack("<f", math.nan if kind == "nan" else math.inf) + t[2][4:]
    elif kind == "dtype":
        name, _, dt = arg.partition("=")
        tensors[name][0] = dt
    elif kind == "bool":
        t = tensors[arg]
        t[0], t[2] = "BOOL", bytes([1]) * (len(t[2]) // 4)
    elif kind == "rows":
        rows = int(arg)
        for name in [k for k in tensors if k.startswith(("fc3.", "fc."))]:
            t = tensors[name]
            per_row = len(t[2]) // t[1][0]
            t[1] = [rows] + t[1][1:]
            t[2] = t[2][:rows * per_row]
out, offset, blob = {"__metadata__": meta}, 0, b""
for k, (dt, shape, b) in tensors.items():
    out[k] = {"dtype": dt, "shape": shape, "data_offsets": [offset, offset + len(b)]}
    offset += len(b)
    blob += b
h = json.dumps(out).encode()
open(dst, "wb").write(struct.pack("<Q", len(h)) + h + blob)
