#!/usr/bin/env python3
"""blocks_fields_check.py DUMP WHAT ARGS... — hold one output of `ipcstamp
blocks` to the list of a block's fields (DUMP: `fields_dump blocks`'s
lines: IPS_BLOCK_FIELDS, then the summary's and --os's lists).

  docs BLOCKS_MD          the tables under "## The fields of a block",
                          "## The fields of the summary" and "## The os
                          object" are the lists: same fields, order, CSV
                          columns, text, types, units and meanings
  schema SCHEMA_JSON      docs/blocks.schema.json's block, its nested
                          objects, its os object and the summary: the
                          list's JSON fields, those always there required
  outputs JSON CSV TEXT   one file's blocks: the CSV header is the list's
                          CSV columns, each CSV row and text row says what
                          its JSON line says, the text summary has the
                          words of the JSON summary's figures; prints the
                          fields seen set ("seen NAME ...")

Exits 0 when everything agrees, 1 (saying what differs, where) when not.
"""
import csv
import json
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from fields_check import done, fail  # noqa: E402 (the one error list)

SCHEMA_TYPE = {"INT": "integer", "BOOL": "boolean", "STR": "string"}


def load(path):
    block, summary, os_ = [], [], []
    for line in open(path, encoding="utf-8"):
        r = line.rstrip("\n").split("\t")
        if r[0] == "summary":
            summary.append(dict(zip(("name", "unit", "when", "text",
                                     "meaning"), r[1:])))
        elif r[0] == "os":
            os_.append(dict(zip(("name", "type", "unit", "when", "meaning"),
                                r[1:])))
        else:
            f = dict(zip(("obj", "name", "csv", "type", "unit", "in", "when",
                          "text", "meaning"), r))
            f["in"] = f["in"].split(",") if f["in"] else []
            f["csv"] = None if f["csv"] == "-" else f["csv"]
            f["text"] = None if f["text"] == "-" else f["text"]
            f["key"] = f["name"] if f["obj"] == "row" else \
                "%s.%s" % (f["obj"], f["name"])
            block.append(f)
    return block, summary, os_


def table(text, title, path):
    m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(title), text,
                  re.S | re.M)
    if not m:
        fail("%s: no section '## %s'" % (path, title))
        return []
    return [r for r in m.group(1).splitlines() if r.startswith("| `")]


def same_rows(path, what, rows, want):
    for i in range(max(len(rows), len(want))):
        got = rows[i] if i < len(rows) else "(nothing)"
        exp = want[i] if i < len(want) else "(nothing)"
        if got != exp:
            fail("%s: row %d of the %s is\n  %s\nthe list says\n  %s" % (
                path, i + 1, what, got, exp))
            return


def dash(s):
    return "—" if s is None else ("`%s`" % s if s else "(as itself)")


def check_docs(lists, path):
    block, summary, os_ = lists
    text = open(path, encoding="utf-8").read()
    same_rows(path, "table of a block's fields",
              table(text, "The fields of a block", path),
              ["| `%s` | %s | %s | %s | %s | %s | %s |" % (
                  f["key"], dash(f["csv"]), dash(f["text"]), f["type"],
                  f["unit"], ", ".join(f["in"]), f["meaning"])
               for f in block])
    same_rows(path, "table of the summary's figures",
              table(text, "The fields of the summary", path),
              ["| `%s` | %s | %s |" % (f["name"], f["unit"], f["meaning"])
               for f in summary])
    same_rows(path, "table of the os object",
              table(text, "The os object", path),
              ["| `%s` | %s | %s | %s |" % (f["name"], f["type"], f["unit"],
                                            f["meaning"]) for f in os_])


def check_object(path, what, node, fields, name_of):
    props = list(node.get("properties", {}))
    names = [name_of(f) for f in fields]
    if sorted(props) != sorted(names):
        fail("%s: %s: only in the schema %s, only in the list %s" % (
            path, what, sorted(set(props) - set(names)),
            sorted(set(names) - set(props))))
    req = sorted(node.get("required", []))
    always = sorted(name_of(f) for f in fields if f["when"] == "1")
    if req != always:
        fail("%s: %s requires %s, the list's fields always there are %s" %
             (path, what, req, always))


def check_schema(lists, path):
    block, summary, os_ = lists
    s = json.load(open(path, encoding="utf-8"))
    d = s["$defs"]
    js = [f for f in block if "json" in f["in"]]
    objs = [o for o in dict.fromkeys(f["obj"] for f in js) if o != "row"]
    row = dict(d["block"])
    row["properties"] = {k: v for k, v in row["properties"].items()
                         if k not in objs and k != "os"}
    check_object(path, "the block", row, [f for f in js if f["obj"] == "row"],
                 lambda f: f["name"])
    for o in objs:
        check_object(path, "the block's " + o, d["block"]["properties"][o],
                     [f for f in js if f["obj"] == o], lambda f: f["name"])
    for f in js:
        node = d["block"]["properties"].get(f["obj"], {}) \
            if f["obj"] != "row" else d["block"]
        p = node.get("properties", {}).get(f["name"], {})
        while "$ref" in p:
            p = d[p["$ref"].split("/")[-1]]
        got = p.get("type") or {"bool": "boolean"}.get(
            type(p.get("enum", [None])[0]).__name__)
        if got != SCHEMA_TYPE[f["type"]]:
            fail("%s: %s is of type %s in the schema, %s in the list" % (
                path, f["key"], got, f["type"]))
    check_object(path, "the os object", d["os"], os_, lambda f: f["name"])
    sm = dict(d["summaryLine"]["properties"]["summary"])
    extra = ("parts", "slowest", "os")
    sm["properties"] = {k: v for k, v in sm["properties"].items()
                        if k not in extra}
    sm["required"] = [k for k in sm["required"] if k not in extra]
    check_object(path, "the summary", sm, summary, lambda f: f["name"])
    parts = d["summaryLine"]["properties"]["summary"]["properties"]["parts"]
    want = [f["name"][:-3] for f in block if "part" in f["in"]]
    if parts["propertyNames"]["enum"] != want:
        fail("%s: the summary's parts are %s, the list's %s" % (
            path, parts["propertyNames"]["enum"], want))
    for f in block:
        if "part" in f["in"] and not f["name"].endswith("_ns"):
            fail("part %s's name does not end in _ns" % f["name"])


def value(row, f):
    """Field f of a JSON row, or None when the row lacks it."""
    node = row if f["obj"] == "row" else row.get(f["obj"], {})
    return node.get(f["name"])


def csv_cell(f, v):
    if f["type"] == "BOOL":
        return "1" if v else "0"
    return "" if v is None else str(v)


def ms(ns):
    """blocks_ms: milliseconds with three decimals, the rest cut."""
    a = abs(ns)
    return "%s%d.%03d" % ("-" if ns < 0 else "", a // 1000000,
                          (a // 1000) % 1000)


def text_rows(path):
    """The text table: its header line and its rows, until the summary."""
    lines = open(path, encoding="utf-8").read().split("\n")
    rows = []
    for line in lines[2:]:
        if not line or line.startswith("==") or line.startswith("    "):
            if line.startswith("=="):
                break
            continue
        rows.append(line)
    return lines[0], lines[1], rows


def check_text(block, jrows, tpath, where0):
    header, units, rows = text_rows(tpath)
    cols = [f for f in block if f["text"] and not f["text"].startswith("(")
            and f["type"] != "STR" and f["text"] != "#"]
    # The columns, in the list's order, then the row's free text.
    at = 0
    for f in cols:
        k = header.find(f["text"], at)
        if k < 0:
            fail("%s: the text header lacks %r (after column %d): %s" % (
                tpath, f["text"], at, header))
            return
        at = k + len(f["text"])
    # The units line: "(s)" under lag, "(ms)" everywhere else.
    secs = units.split().count("(s)")
    if len(rows) != len(jrows):
        fail("%s: %d JSON blocks but %d text rows" % (tpath, len(jrows),
                                                      len(rows)))
        return
    for i, (j, t) in enumerate(zip(jrows, rows)):
        where = "%s: block %d (%s)" % (where0, i + 1, t[:20])
        tok = t.split()
        rest = " ".join(tok[len(cols):])
        for c, f in enumerate(cols):
            v = value(j, f)
            if f["name"] == "height":
                want = "boot" if j.get("bootstrap") else str(v)
            elif f["name"] == "deliveries_ns":
                want = ms(sum(j[k] for k in ("pipe_ns", "worker_ns",
                                             "kernel_ns", "unmatched_ns")))
            elif v is None:
                want = "-"
            elif f["unit"] == "ns":
                want = ms(v // 1000) if secs and f["name"] == "lag_ns" \
                    else ms(v)
            else:
                want = str(v)
            if c >= len(tok) or tok[c] != want:
                fail("%s: text %s is %r, JSON says %r" % (
                    where, f["text"], tok[c] if c < len(tok) else None, want))
        for f in block:
            v = value(j, f)
            if not f["text"] or f["text"] in [g["text"] for g in cols]:
                continue
            if f["text"].startswith("("):
                word = f["text"][1:]
                if bool(v) != (word in rest):
                    fail("%s: %s is %r but the text %s %r" % (
                        where, f["key"], v, "lacks" if v else "has", word))
            elif f["type"] == "STR" and v is not None and v not in rest:
                fail("%s: text lacks %s %r" % (where, f["key"], v))
            elif f["text"] == "#" and v is not None and \
                    "#%d" % v not in rest:
                fail("%s: text lacks %s #%d" % (where, f["key"], v))


def check_summary_text(summary, js, tpath):
    text = open(tpath, encoding="utf-8").read()
    m = text.find("== blocks summary")
    if m < 0:
        return fail("%s: no summary" % tpath)
    text = text[m:]
    for f in summary:
        v = js.get(f["name"])
        if f["text"] and v and f["text"] not in text:
            fail("%s: the summary's %s is %r but the text lacks %r" % (
                tpath, f["name"], v, f["text"]))


def check_outputs(lists, jpath, cpath, tpath):
    block, summary, _ = lists
    lines = [json.loads(l) for l in open(jpath, encoding="utf-8")]
    jrows = [l for l in lines if "summary" not in l]
    with open(cpath, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = [dict(zip(header, r)) for r in reader]
    want = [f["csv"] for f in block if f["csv"]]
    if header != want:
        fail("%s: the CSV header is %s, the list's CSV columns %s" % (
            cpath, header, want))
    if len(rows) != len(jrows):
        fail("%s: %d JSON blocks but %d CSV rows" % (cpath, len(jrows),
                                                     len(rows)))
    seen = set()
    for i, (j, c) in enumerate(zip(jrows, rows)):
        where = "%s: block %d (line %s)" % (jpath, i + 1, j.get("line"))
        for f in block:
            v = value(j, f)
            if v not in (None, 0, False, ""):
                seen.add(f["key"])
            if f["csv"] and c.get(f["csv"]) != csv_cell(f, v):
                fail("%s: CSV %s is %r, JSON %r" % (where, f["csv"],
                                                    c.get(f["csv"]), v))
    check_text(block, jrows, tpath, jpath)
    sums = [l["summary"] for l in lines if "summary" in l]
    if len(sums) != 1:
        fail("%s: %d summary lines, not 1" % (jpath, len(sums)))
    else:
        check_summary_text(summary, sums[0], tpath)
        seen.update("summary." + k for k, v in sums[0].items() if v)
    print("seen " + " ".join(sorted(seen)))


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    lists = load(argv[1])
    what = argv[2]
    if what == "docs":
        check_docs(lists, argv[3])
    elif what == "schema":
        check_schema(lists, argv[3])
    elif what == "outputs" and len(argv) == 6:
        check_outputs(lists, *argv[3:6])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
