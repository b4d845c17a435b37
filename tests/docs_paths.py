#!/usr/bin/env python3
"""docs_paths.py: the file paths the docs and comments name exist.

Checks, from the source tree SOURCE_DIR:
  - every section named (README "Title", docs/x.md, 'Title'), in docs,
    comments and messages, is a heading (or a **bold lead-in.**) of that page;
  - every path that docs/*.md, README.md, or a comment in src/ apps/ tests/
    scripts/ names exists: src/cifar/..., tests/..., scripts/..., configs/...,
    docs/..., apps/..., fuzz/..., cmake/... and the short `layer/file.h`
    (`layer/file.cpp`, `layer/file.h/.cpp`, and in the docs' backquotes
    `layer/file`) forms for the layers of src/cifar;
  - the file tables of docs/architecture.md (one per layer: `file.h/.cpp`
    under "### `layer/`") name files of that layer;
  - its layout table names every entry of configs/ and of scripts/;
  - its layers table's "includes today" column is what the sources include.
A failure names the file, the line and the path.

  python3 tests/docs_paths.py SOURCE_DIR
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
LAYERS = "core formats platform data model dist optim io report infer config resolve train app".split()
TOP = "src|tests|scripts|configs|docs|apps|fuzz|cmake"
# A repository path: top folder, then name characters (a trailing dot or
# slash is punctuation or a folder mark, handled below).
REPO_PATH = re.compile(r"(?<![\w./-])(?:\./)?((?:%s)/[\w./+-]*[\w+/])" % TOP)
# layer/file.h, layer/file.cpp, layer/file.h/.cpp
SHORT_FILE = re.compile(r"(?<![\w./-])(%s)/(\w+)(\.h/\.cpp|\.h|\.cpp)\b" % "|".join(LAYERS))
# `layer/file` in backquotes (the docs' prose: `train/recipe`)
TICKED = re.compile(r"`(%s)/(\w+)(?:\.h/\.cpp|\.h|\.cpp)?`" % "|".join(LAYERS))
SKIP_MARKS = ("<", "*", "...", "{", "$", "%", "XXX")
# A section of a page: README "Title", the README, 'Title', docs/x.md, "Title"
SECTION = re.compile(r"""(README|docs/\w+\.md)(?:\.md)?,? ['"]([A-Z][^'"]+)['"]""")

problems = []


def exists(rel):
    return os.path.exists(os.path.join(root, rel))


def layer_file_exists(layer, stem, ext, folders=("src/cifar",)):
    return any(in_folder(os.path.join(f, layer, stem), ext) for f in folders)


def in_folder(base, ext):
    if ext == ".h/.cpp":
        return exists(base + ".h") and exists(base + ".cpp")
    if ext:
        return exists(base + ext)
    return exists(base + ".h") or exists(base + ".cpp")


def headings(page, cache={}):
    if page not in cache:
        text = open(os.path.join(root, page), encoding="utf-8").read()
        # headings, and the bold lead-ins of paragraphs (**Build time.**)
        cache[page] = {m.group(1).strip() for m in re.finditer(r"^#+ (.+)$", text, re.M)}
        cache[page] |= {m.group(1) for m in re.finditer(r"\*\*([^*]+?)\.?\*\*", text)}
    return cache[page]


def check_sections(rel, lineno, text):
    for m in SECTION.finditer(text):
        page = "README.md" if m.group(1) == "README" else m.group(1)
        if exists(page) and m.group(2) not in headings(page):
            problems.append(f"{rel}:{lineno}: names the section '{m.group(2)}' of {page}, "
                            "which has no such heading")


def check_text(rel, lineno, text, ticked_forms):
    for m in REPO_PATH.finditer(text):
        path = m.group(1)
        after = text[m.end():m.end() + 1]
        if any(s in path for s in SKIP_MARKS) or after in "<*{$":
            continue
        path = path.rstrip(".")
        # build/ products and generated files are not in the tree
        if path.startswith(("src/cifar/", "tests/", "scripts/", "configs/", "docs/", "apps/",
                            "fuzz/", "cmake/")) or path in ("src/", "tests/"):
            if "/build/" in path:
                continue
            if path.endswith(".h/.cpp"):
                ok = exists(path[:-len("/.cpp")]) and exists(path[:-len(".h/.cpp")] + ".cpp")
            else:
                ok = exists(path)
            if not ok:
                problems.append(f"{rel}:{lineno}: names {path}, which does not exist")
    for m in SHORT_FILE.finditer(text):
        if text[max(0, m.start() - 1):m.start()] in ("/",):
            continue
        layer, stem, ext = m.groups()
        # a test's own helpers are named the same way (formats/image_encoders.h)
        if not layer_file_exists(layer, stem, ext, ("src/cifar", "tests")):
            problems.append(f"{rel}:{lineno}: names {layer}/{stem}{ext}, which is not in "
                            f"src/cifar/{layer}/")
    if ticked_forms:
        for m in TICKED.finditer(text):
            layer, stem = m.groups()
            if not layer_file_exists(layer, stem, "", ("src/cifar", "tests")):
                problems.append(f"{rel}:{lineno}: names `{layer}/{stem}`, which is not in "
                                f"src/cifar/{layer}/")


def comment_of(line, ext):
    """The comment part of a source line ('' when none)."""
    if ext in (".h", ".cpp", ".cc"):
        i = line.find("//")
        if i >= 0:
            return line[i + 2:]
        s = line.strip()
        return s if s.startswith(("/*", "*")) else ""
    i = line.find("#")
    while i > 0 and line[i - 1] in "$'\"{":  # ${#a}, '#', "#"
        i = line.find("#", i + 1)
    return line[i + 1:] if i >= 0 else ""


def source_files():
    for top in ("src", "apps", "tests", "scripts"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if x not in ("__pycache__",) and not x.startswith(".")]
            for f in sorted(files):
                ext = os.path.splitext(f)[1]
                if ext in (".h", ".cpp", ".cc", ".sh", ".py", ".bash", ".txt", ".cmake") or \
                        (ext == "" and top == "scripts"):
                    yield os.path.join(d, f)


def doc_files():
    yield os.path.join(root, "README.md")
    for f in sorted(os.listdir(os.path.join(root, "docs"))):
        if f.endswith(".md"):
            yield os.path.join(root, "docs", f)


for path in doc_files():
    rel = os.path.relpath(path, root)
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        check_text(rel, n, line, ticked_forms=True)
        check_sections(rel, n, line)

for path in source_files():
    rel = os.path.relpath(path, root)
    if rel == "tests/docs_paths.py":  # its own examples name no real paths
        continue
    ext = os.path.splitext(path)[1]
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except UnicodeDecodeError:
        continue
    for n, line in enumerate(lines, 1):
        check_sections(rel, n, line)  # messages too: "see the README, 'Set up'"
        comment = comment_of(line, ext)
        if comment:
            check_text(rel, n, comment, ticked_forms=False)

# --- docs/architecture.md's tables -------------------------------------------
arch_rel = "docs/architecture.md"
arch = open(os.path.join(root, arch_rel), encoding="utf-8").read().splitlines()
section = None
for n, line in enumerate(arch, 1):
    h = re.match(r"### `(\w+)/`", line)
    if h:
        section = h.group(1) if h.group(1) in LAYERS else None
        continue
    if line.startswith("## "):
        section = None
    if section and line.startswith("| `"):
        cell = line.split("|")[1].strip()
        for m in re.finditer(r"`(\w+)(\.h/\.cpp|\.h|\.cpp)`", cell):
            if not layer_file_exists(section, m.group(1), m.group(2)):
                problems.append(f"{arch_rel}:{n}: the {section}/ table names {m.group(1)}"
                                f"{m.group(2)}, which is not in src/cifar/{section}/")


def layout_row(folder):
    for n, line in enumerate(arch, 1):
        if line.startswith(f"| `{folder}/` |"):
            return n, line.split("|", 2)[2]
    problems.append(f"{arch_rel}: the layout table has no row for {folder}/")
    return 0, ""


for folder in ("configs", "scripts"):
    n, row = layout_row(folder)
    named = set(re.findall(r"`([\w.+-]+/?)(?:[\w./-]*)`", row))
    for entry in sorted(os.listdir(os.path.join(root, folder))):
        if entry.startswith(".") or entry == "__pycache__":
            continue
        full = os.path.join(root, folder, entry)
        key = entry + "/" if os.path.isdir(full) else entry
        if key not in named:
            problems.append(f"{arch_rel}:{n}: the layout table's {folder}/ row does not name "
                            f"{folder}/{key}")
    for m in re.finditer(r"`([\w.+/-]+)`", row):
        if not exists(os.path.join(folder, m.group(1))):
            problems.append(f"{arch_rel}:{n}: the layout table's {folder}/ row names "
                            f"{folder}/{m.group(1)}, which does not exist")


def includes_today(layer):
    found = set()
    d = os.path.join(root, "src/cifar", layer)
    for f in os.listdir(d):
        for line in open(os.path.join(d, f), encoding="utf-8"):
            m = re.match(r'\s*#include "cifar/(\w+)/', line)
            if m and m.group(1) != layer:
                found.add(m.group(1))
    return found


for n, line in enumerate(arch, 1):
    m = re.match(r"\| `(\w+)/` \|", line)
    cells = [c.strip() for c in line.split("|")]
    if not m or m.group(1) not in LAYERS or len(cells) < 6:
        continue
    layer = m.group(1)
    stated = cells[4].strip("`")
    below = LAYERS[:LAYERS.index(layer)]
    if stated == "nothing":
        claimed = set()
    elif stated == "every layer below":
        claimed = set(below)
    else:
        claimed = set(stated.replace("`", "").split())
    actual = includes_today(layer)
    if claimed != actual:
        want = " ".join(l for l in LAYERS if l in actual) or "nothing"
        if actual == set(below) and below:
            want += " (every layer below)"
        problems.append(f"{arch_rel}:{n}: {layer}/'s 'includes today' says '{stated}'; "
                        f"its files include {want}")

if problems:
    print("\n".join(problems))
    print(f"{len(problems)} path(s) in the docs or comments that do not hold "
          "(rename them, or fix the table)")
    sys.exit(1)
print("every path named in the docs and comments exists; architecture.md's tables hold")
