#!/usr/bin/env python3
"""Fails when the documentation drifts from the tree.

  check_docs.py <repository root>

Checks, over every tracked README.md and docs/*.md:
  paths        every repository path a document names exists. A path reference is a token
               whose first component is a tracked top-level directory ("runtime/tensor.h",
               anywhere in the text), a backticked token whose first component is a directory
               beside the document ("spec/chip_spec.h" in simulator/README.md), or a relative
               Markdown link (outside code). Tokens with placeholders or wildcards (<build>, *,
               {a,b}, ...) are patterns, not paths; outside backticks only tokens that look like
               files (an extension) or folders (a trailing /) count, so prose such as
               "runtime/API" is not a path; an extension the repository never uses (another
               project's "tools/x/y.rst") is not a path here. A program may be named by its
               source without the extension ("bench/api/async_pipeline_bench"), a generated
               file by its source ("proto/neurond.pb.h" by proto/neurond.proto), and a header
               and its source together ("driver/remote/convert.h/.cc").
  not built    every docs/ sentence saying something is "not built yet" names libnrt functions,
               and docs/api-status.md gives each of them a "not yet" status.
  api status   docs/api-status.md has one row per exported function (api/exported_functions.txt)
               and its count of functions not yet built matches its rows.
Prints one line per failure and "N passed, M failed"; exits 1 on any failure.
"""
import os
import re
import subprocess
import sys

PATTERN_CHARS = set("<>*{}$[]|…")
FUNCTION = re.compile(r"\b(?:nrta?|trnsim)_[a-z0-9_]+\b")
NOT_BUILT = re.compile(r"not (?:yet )?built(?: yet)?|not implemented(?: in trnsim)? yet", re.I)


def tracked_files(root):
    """The repository's files: git's list, or (outside a git checkout) the source tree without
    build directories."""
    git = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if git.returncode == 0:
        return [line for line in git.stdout.splitlines() if line]
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build", "Testing"))]
        files += [os.path.relpath(os.path.join(folder, n), root) for n in names]
    return files


def documents(files):
    return sorted(f for f in files
                  if os.path.basename(f) == "README.md"
                  or (f.startswith("docs/") and f.endswith(".md") and f.count("/") == 1))


def clean(token):
    token = re.sub(r":\d+(?:-\d+)?$", "", token)  # file.cc:123
    return token.rstrip(".,;:)'\"")


def is_pattern(token):
    return any(c in PATTERN_CHARS for c in token) or "..." in token


GENERATED = [(re.compile(r"\.grpc\.pb\.(h|cc)$"), ".proto"),
             (re.compile(r"\.pb\.(h|cc)$"), ".proto")]


class PathIndex:
    def __init__(self, files):
        self.files = set(files)
        self.extensions = {os.path.splitext(f)[1] for f in files if os.path.splitext(f)[1]}
        self.dirs = set()
        for f in files:
            parts = f.split("/")
            for i in range(1, len(parts)):
                self.dirs.add("/".join(parts[:i]))
        self.top = {d for d in self.dirs if "/" not in d}

    def exists(self, path):
        path = os.path.normpath(path)
        if path in self.files or path in self.dirs:
            return True
        m = re.match(r"^(.*)\.(\w+)/\.(\w+)$", path)  # x.h/.cc: both
        if m:
            return all(self.exists(f"{m.group(1)}.{ext}") for ext in m.group(2, 3))
        for pattern, source in GENERATED:
            if pattern.search(path):
                return pattern.sub(source, path) in self.files
        if not os.path.splitext(path)[1]:  # a program named by its source
            return any(path + ext in self.files for ext in (".cc", ".c", ".py", ".sh"))
        return False

    def foreign(self, path):
        """An extension no tracked file has: a reference to another project's file."""
        ext = os.path.splitext(path)[1]
        return bool(ext) and ext not in self.extensions


def in_backticks(text, position):
    line_start = text.rfind("\n", 0, position) + 1
    return text.count("`", line_start, position) % 2 == 1


def without_code(text):
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def check_paths(index, doc, text, failures):
    checked = 0
    here = os.path.dirname(doc)
    top = "|".join(sorted(re.escape(d) for d in index.top))
    # Repository-rooted references anywhere in the text (inside or outside backticks).
    rooted = re.compile(r"(?<![\w./<-])((?:%s)/[\w./+-]*)" % top)
    seen = set()
    for m in rooted.finditer(text):
        token = clean(m.group(1))
        end = m.end(1)
        if is_pattern(token) or (end < len(text) and text[end] in PATTERN_CHARS):
            continue
        if token in seen or index.foreign(token):
            continue
        last = token.rstrip("/").split("/")[-1]
        if not in_backticks(text, m.start(1)) and "." not in last and not token.endswith("/"):
            continue  # prose ("runtime/API"), not a path
        seen.add(token)
        checked += 1
        if not index.exists(token) and not (here and index.exists(os.path.join(here, token))):
            failures.append(f"{doc}: names '{token}', which does not exist")
    # Folder-relative references in backticks (a README naming its own files).
    if here:
        for m in re.finditer(r"`([\w.+-]+/[\w./+-]*)`", text):
            token = clean(m.group(1))
            first = token.split("/")[0]
            if is_pattern(token) or token in seen or first in index.top:
                continue
            if os.path.join(here, first) not in index.dirs:
                continue  # not a folder beside the document: not a path reference
            seen.add(token)
            checked += 1
            if not index.exists(os.path.join(here, token)):
                failures.append(f"{doc}: names '{token}' ({here}/{token}), which does not exist")
    # Relative Markdown links.
    for m in re.finditer(r"\]\(([^)\s]+)\)", without_code(text)):
        target = m.group(1).split("#")[0]
        if not target or re.match(r"^[a-z]+:", target) or is_pattern(target):
            continue
        checked += 1
        if not index.exists(os.path.join(here, target)):
            failures.append(f"{doc}: links to '{m.group(1)}', which does not exist")
    return checked


def api_status_rows(root):
    rows = {}
    with open(os.path.join(root, "docs/api-status.md")) as f:
        for line in f:
            m = re.match(r"^\| `((?:nrta?|trnsim)_[a-z0-9_]+)` \| [^|]+ \| [^|]+ \| (.*) \|$", line)
            if m:
                rows[m.group(1)] = m.group(2)
    return rows


def check_not_built(root, docs, rows, failures):
    checked = 0
    for doc in docs:
        if not doc.startswith("docs/") or doc == "docs/api-status.md":
            continue
        with open(os.path.join(root, doc)) as f:
            for number, line in enumerate(f, 1):
                if not NOT_BUILT.search(line):
                    continue
                checked += 1
                names = FUNCTION.findall(line)
                if not names:
                    failures.append(f"{doc}:{number}: says 'not built yet' without naming the "
                                    "functions (docs/api-status.md cannot confirm it)")
                for name in names:
                    status = rows.get(name)
                    if status is None:
                        failures.append(f"{doc}:{number}: {name} is not in docs/api-status.md")
                    elif not status.startswith("not yet"):
                        failures.append(f"{doc}:{number}: says {name} is not built yet; "
                                        f"docs/api-status.md says '{status[:60]}'")
    return checked


def check_api_status(root, rows, failures):
    exported = set()
    with open(os.path.join(root, "api/exported_functions.txt")) as f:
        for line in f:
            if line.strip():
                exported.add(line.split()[0])
    for name in sorted(exported - set(rows)):
        failures.append(f"docs/api-status.md: no row for the exported function {name}")
    for name in sorted(set(rows) - exported):
        failures.append(f"docs/api-status.md: a row for {name}, which libnrt does not export")
    with open(os.path.join(root, "docs/api-status.md")) as f:
        m = re.search(r"(\d+) are not yet built", f.read())
    if not m:
        failures.append("docs/api-status.md: no 'N are not yet built' count")
    else:
        not_built = sum(1 for s in rows.values() if s.startswith("not yet"))
        if int(m.group(1)) != not_built:
            failures.append(f"docs/api-status.md: counts {m.group(1)} functions not yet built, "
                            f"its rows {not_built}")
    return len(exported) + 1


def main(root):
    files = tracked_files(root)
    index = PathIndex(files)
    docs = documents(files)
    failures = []
    checks = 0
    for doc in docs:
        with open(os.path.join(root, doc)) as f:
            checks += check_paths(index, doc, f.read(), failures)
    rows = api_status_rows(root)
    checks += check_not_built(root, docs, rows, failures)
    checks += check_api_status(root, rows, failures)
    for failure in failures:
        print("FAIL", failure)
    print(f"{checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
