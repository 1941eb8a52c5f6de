#!/usr/bin/env python3
"""doclinks.py DIR — every relative link of the Markdown files under DIR
resolves: the file exists (relative to the page, as a browser or GitHub
reads it) and its #anchor names a heading of that file.

make check runs it on the source tree; make installcheck on the installed
$(docdir), whose layout is the same, so a link that works in the
repository but not in share/doc/ipcstamp fails.  Prints each broken link as
"FILE:LINE: link: why" and exits 1 when there is one, 2 on bad usage.
"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading):
    # GitHub's anchors: lower case, punctuation dropped, spaces to hyphens.
    h = heading.strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def headings(path):
    out, fence = set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
            elif not fence and line.startswith("#"):
                out.add(slug(line.lstrip("#")))
    return out


def check(path, top):
    bad = []
    fence = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                fence = not fence
                continue
            if fence:
                continue
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # http:, https:, mailto:
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                where = "%s:%d: %s" % (os.path.relpath(path, top), n, target)
                if not os.path.exists(dest):
                    bad.append("%s: no such file %s" % (where, os.path.relpath(dest, top)))
                elif anchor and dest.endswith(".md") and anchor not in headings(dest):
                    bad.append("%s: no heading for #%s in %s" % (where, anchor, os.path.relpath(dest, top)))
    return bad


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        sys.stderr.write("usage: doclinks.py DIR\n")
        return 2
    top, pages, bad = argv[1], 0, []
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if x not in ("node_modules", ".git") and not x.startswith("ipcstamp-")]
        for name in sorted(files):
            if name.endswith(".md"):
                pages += 1
                bad += check(os.path.join(d, name), top)
    for b in bad:
        print(b)
    print("doclinks: %d pages, %d broken links" % (pages, len(bad)))
    return 1 if bad or pages == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
