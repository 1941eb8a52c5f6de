#!/usr/bin/env python3
"""fields_check.py DUMP WHAT ARGS... — hold one output to the list of a
delivery's fields (DUMP: tests/tools/fields_dump's lines).

  docs REPORT_MD             the table under "## The fields of a delivery"
                             is the list: same fields, order, types, units,
                             formats and meanings
  schema SCHEMA_JSON         the schema's delivery: the JSON fields, those
                             always there required, each of its type
  csv-header CSV [os]        the CSV's header is the list's CSV fields
                             (with os: and the IPS_OS_FIELDS, run with --os)
  skips STDERR HTML JSON      one slogfile's skips: each line report says on
                             stderr has the list's fields, the page's skips
                             (its deliveries') are those lines, field by
                             field, and the JSON summary counts them by
                             reason
  outputs JSON CSV TEXT OTEL TRACE [os]
                             one slogfile's outputs: each CSV row and text
                             block says what its JSON line says, the OTel
                             delivery spans carry the JSON's values, the
                             trace's delivery args are the trace fields;
                             prints the fields seen ("seen NAME ..."); with
                             os (run with --os), every delivery has every
                             field of the recording's (os_before_*: those
                             with kernel_before_ns, and only they)

Exits 0 when everything agrees, 1 (saying what differs, where) when not.
"""
import csv
import json
import re
import sys

LISTS = {"SEGMENTS", "SEGWAIT", "MARKS"}
SCHEMA_TYPE = {"INT": "integer", "BOOL": "boolean", "STR": "string",
               "SEGMENTS": "array", "SEGWAIT": "array", "MARKS": "array",
               "BY": "object"}
errors = []


def fail(msg):
    errors.append(msg)


TOTALS = []
SKIP = []
REASONS = {}


def load_list(path):
    fields = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("totals\t"):
            TOTALS.append(line.rstrip("\n").split("\t")[1:])
            continue
        if line.startswith("skip\t"):
            SKIP.append(line.rstrip("\n").split("\t")[1:])
            continue
        if line.startswith("reason\t"):
            _, name, msg = line.rstrip("\n").split("\t")
            REASONS[msg] = name
            continue
        name, typ, unit, inn, when, text, otel, meaning = \
            line.rstrip("\n").split("\t")
        fields.append({"name": name, "type": typ, "unit": unit,
                       "in": inn.split(",") if inn else [], "when": when,
                       "text": None if text == "-" else text,
                       "otel": None if otel == "-" else otel,
                       "meaning": meaning})
    return fields


def check_docs(fields, path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^## The fields of a delivery\n(.*?)(?=^## )", text,
                  re.S | re.M)
    if not m:
        return fail("%s: no section '## The fields of a delivery'" % path)
    rows = [r for r in m.group(1).splitlines() if r.startswith("| `")]
    want = ["| `%s` | %s | %s | %s | %s |" % (
        f["name"], f["type"], f["unit"] or "", ", ".join(f["in"]),
        f["meaning"]) for f in fields]
    for i in range(max(len(rows), len(want))):
        got = rows[i] if i < len(rows) else "(nothing)"
        exp = want[i] if i < len(want) else "(nothing)"
        if got != exp:
            fail("%s: row %d of the table of fields is\n  %s\nthe list says\n"
                 "  %s" % (path, i + 1, got, exp))
            break
    check_table(text, path, "The sums of a summary",
                ["| `%s` | %s | %s |" % tuple(t) for t in TOTALS])
    check_table(text, path, "The fields of a skip",
                ["| `%s` | %s | %s | %s |" % tuple(t) for t in SKIP])


SKIP_LINE = re.compile(r"^[^:]+: .*:(\d+): (.*?) \(skipped\)$")


def check_skips(spath, hpath, jpath):
    """stderr's skips, the page's and the JSON summary's counts agree."""
    said = []
    for line in open(spath, encoding="utf-8"):
        m = SKIP_LINE.match(line.rstrip("\n"))
        if not m:
            continue
        rest = m.group(2)
        msg = next((k for k in sorted(REASONS, key=len, reverse=True)
                    if rest == k or rest.startswith(k + ": ")), None)
        if msg is None:
            fail("%s: a skip with no reason of the list: %s" % (spath, line))
            continue
        said.append({"line": int(m.group(1)), "reason": REASONS[msg],
                     "message": msg, "detail": rest[len(msg) + 2:]})
    page = None
    for line in open(hpath, encoding="utf-8"):
        if line.startswith('{"title":'):  # then </script>
            page = json.loads(line[:line.rindex("</script>")])
    if page is None:
        return fail("%s: no page data" % hpath)
    names = [t[0] for t in SKIP]
    if page.get("skip_fields") != names:
        fail("%s: the page's skip_fields are %s, the list's %s" % (
            hpath, page.get("skip_fields"), names))
    dels = [s for s in said if s["reason"] not in ("NOT_JSON", "TRUNCATED",
                                                   "TOO_LONG")]
    got = [dict(zip(names, k[1:])) for k in page.get("skips", [])]
    if got != dels[:len(got)] or len(got) != min(len(dels), 1000):
        fail("%s: the page's skips\n  %s\nstderr's\n  %s" % (
            hpath, got[:3], dels[:3]))
    summary = [json.loads(l) for l in open(jpath, encoding="utf-8")
               if l.startswith('{"summary"')]
    counts = summary[0]["summary"]["skipped"] if summary else None
    want = {}
    for s in said:
        want[s["reason"]] = want.get(s["reason"], 0) + 1
    if counts != want:
        fail("%s: the summary counts %s, stderr says %s" % (jpath, counts,
                                                            want))
    print("skips %d" % len(said))


def check_table(text, path, title, want):
    """The rows of the table under '## title' are want, in order."""
    m = re.search(r"^## %s\n(.*?)(?=^## )" % re.escape(title), text,
                  re.S | re.M)
    if not m:
        return fail("%s: no section '## %s'" % (path, title))
    rows = [r for r in m.group(1).splitlines() if r.startswith("| `")]
    if rows != want:
        fail("%s: the table under '%s' is\n  %s\nthe list says\n  %s" % (
            path, title, "\n  ".join(rows), "\n  ".join(want)))


def done():
    """main's end: the first errors said, and the exit code."""
    for e in errors[:20]:
        print(e)
    return 1 if errors else 0


def check_schema(fields, path):
    s = json.load(open(path, encoding="utf-8"))
    d = s["$defs"]["delivery"]

    def resolve(p):
        while "$ref" in p:
            node = s
            for part in p["$ref"][2:].split("/"):
                node = node[part]
            p = node
        return p
    js = [f for f in fields if "json" in f["in"]]
    names = [f["name"] for f in js]
    props = list(d["properties"])
    if sorted(props) != sorted(names):
        fail("%s: the delivery's properties differ from the list's JSON "
             "fields: only in the schema %s, only in the list %s" % (
                 path, sorted(set(props) - set(names)),
                 sorted(set(names) - set(props))))
    req = sorted(d.get("required", []))
    always = sorted(f["name"] for f in js if f["when"] == "1")
    if req != always:
        fail("%s: required %s, but the list's fields always there are %s" %
             (path, req, always))
    sm = s["$defs"]["summaryLine"]["properties"]["summary"]
    vat = sm["properties"]["vats"]["items"]
    names = [t[0] for t in TOTALS]
    want = sorted(names + ["vat", "offset_ns", "offset_bound_ns"])
    if sorted(vat["properties"]) != want:
        fail("%s: a vat's entry in the summary has %s, the list of sums %s "
             "(with vat and its offset)" % (path, sorted(vat["properties"]),
                                            want))
    if sorted(vat["required"]) != sorted(names + ["vat"]):
        fail("%s: a vat's entry requires %s, the list of sums %s" % (
            path, sorted(vat["required"]), sorted(names + ["vat"])))
    missing = set(names) - set(sm["required"])
    if missing:
        fail("%s: the summary does not require the sums %s" % (
            path, sorted(missing)))
    for f in js:
        p = d["properties"].get(f["name"])
        if p is None:
            continue
        p = resolve(p)
        # A type, or an enum whose values are all of one JSON type.
        got = p.get("type") or {
            type(v).__name__ for v in p.get("enum", [None])}.pop()
        got = {"bool": "boolean", "str": "string", "int": "integer"}.get(
            got, got)
        if got != SCHEMA_TYPE[f["type"]]:
            fail("%s: %s is of type %s in the schema, %s in the list" % (
                path, f["name"], got, f["type"]))


def shown(f, with_os):
    """Whether field f is in an output run with --os (with_os) or not."""
    return with_os or "os" not in f["in"]


def os_has(f, d):
    """Whether delivery d (a JSON line, run with --os) must have OS field
    f: all of them, but the time before it (os_before_*) only with a
    delivery before it (kernel_before_ns)."""
    if "has_before" in f["when"]:
        return "kernel_before_ns" in d
    return True


def check_csv_header(fields, path, with_os=False):
    with open(path, encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh))
    want = [f["name"] for f in fields if "csv" in f["in"] and
            shown(f, with_os)]
    if header != want:
        fail("%s: the CSV header is %s, the list's CSV fields %s" % (
            path, header, want))


def csv_cell(f, v):
    """What the CSV cell of field f holds for the JSON value v (None:
    the JSON line has no such field)."""
    if f["type"] == "BOOL":
        return "1" if v else "0"
    if v is None:
        return ""
    if f["type"] == "MARKS":
        return str(len(v))
    if f["type"] == "BY":
        return " ".join("%s=%d" % kv for kv in v.items())
    return str(v)


def otel_spans(path):
    """The delivery spans' attributes, keyed by (vat, deliveryNum, line)."""
    out = {}
    for line in open(path, encoding="utf-8"):
        for rs in json.loads(line).get("resourceSpans", []):
            for ss in rs["scopeSpans"]:
                for sp in ss["spans"]:
                    a = {}
                    for kv in sp.get("attributes", []):
                        (k, v), = kv["value"].items()
                        a[kv["key"]] = int(v) if k == "intValue" else v
                    if "agoric.deliveryNum" in a and "ipcstamp.pipe_ns" in a:
                        out[(a["agoric.vatID"], a["agoric.deliveryNum"],
                             a.get("ipcstamp.line"))] = a
    return out


def text_blocks(path):
    """Each delivery's lines of the text report, in order."""
    blocks = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("== summary") or line.startswith("\n"):
            break
        if not line.startswith(" "):
            blocks.append("")
        blocks[-1] += line
    return blocks


def check_outputs(fields, jpath, cpath, tpath, opath, rpath, with_os=False):
    fields = [f for f in fields if shown(f, with_os)]
    dels = [json.loads(l) for l in open(jpath, encoding="utf-8")]
    dels = [d for d in dels if "summary" not in d]
    with open(cpath, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    blocks = text_blocks(tpath)
    spans = otel_spans(opath)
    trace = json.load(open(rpath, encoding="utf-8"))
    ev = trace["traceEvents"] if isinstance(trace, dict) else trace
    args = [e["args"] for e in ev if e.get("name") == "delivery"
            and e.get("ph") == "i"]
    for what, n in (("CSV rows", len(rows)), ("text deliveries", len(blocks)),
                    ("OTel delivery spans", len(spans)),
                    ("trace delivery instants", len(args))):
        if n != len(dels):
            fail("%s: %d JSON deliveries but %d %s" % (jpath, len(dels), n,
                                                       what))
    seen = set()
    trace_names = {f["name"] for f in fields if "trace" in f["in"]}
    for i, d in enumerate(dels):
        where = "%s: delivery %d (line %s)" % (jpath, i + 1, d.get("line"))
        seen.update(k for k, v in d.items() if v not in (0, False, [], {}))
        for f in fields:
            if with_os and "os" in f["in"] and \
                    (f["name"] in d) != os_has(f, d):
                fail("%s: run with --os, it %s %s" % (
                    where, "has" if f["name"] in d else "has no", f["name"]))
            v = d.get(f["name"])
            if "json" not in f["in"] and i < len(rows) and \
                    rows[i].get(f["name"]):  # CSV's alone: its value there
                v = int(rows[i][f["name"]]) if f["type"] == "INT" else \
                    rows[i][f["name"]]
            if "json" in f["in"] and i < len(rows) and "csv" in f["in"]:
                got = rows[i].get(f["name"])
                if got != csv_cell(f, v):
                    fail("%s: CSV %s is %r, JSON %r" % (where, f["name"], got,
                                                        v))
            if f["text"] is not None and i < len(blocks) and v is not None:
                b = blocks[i]
                if f["type"] == "BY":
                    if v and f["text"] not in b:
                        fail("%s: text lacks %r for %s:\n%s" % (
                            where, f["text"], f["name"], b))
                elif f["type"] == "STR":
                    if str(v) not in b:
                        fail("%s: text lacks %s %r:\n%s" % (where, f["name"],
                                                            v, b))
                elif f["type"] == "BOOL" or f["type"] in LISTS:
                    if bool(v) != (f["text"] in b):
                        fail("%s: %s is %r but the text %s %r:\n%s" % (
                            where, f["name"], v,
                            "lacks" if v else "has", f["text"], b))
                elif v not in (0, None) and f["text"] not in b:
                    fail("%s: text lacks %r for %s:\n%s" % (where, f["text"],
                                                            f["name"], b))
            if f["otel"] and v not in (None, 0, False) and \
                    "old" not in f["in"]:
                a = spans.get((d["vat"], d["deliveryNum"], d["line"]), {})
                if a.get(f["otel"]) != v:
                    fail("%s: OTel %s is %r, JSON %s %r" % (
                        where, f["otel"], a.get(f["otel"]), f["name"], v))
        if i < len(args):
            extra = set(args[i]) - trace_names
            if extra:
                fail("%s: trace args %s are not trace fields of the list" %
                     (where, sorted(extra)))
            for f in fields:
                if f["name"] in trace_names and f["name"] in d and \
                        args[i].get(f["name"]) != d[f["name"]]:
                    fail("%s: trace arg %s is %r, JSON %r" % (
                        where, f["name"], args[i].get(f["name"]),
                        d[f["name"]]))
    print("seen " + " ".join(sorted(seen)))


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    fields = load_list(argv[1])
    what = argv[2]
    if what == "docs":
        check_docs(fields, argv[3])
    elif what == "schema":
        check_schema(fields, argv[3])
    elif what == "csv-header" and len(argv) in (4, 5):
        check_csv_header(fields, argv[3], argv[4:] == ["os"])
    elif what == "skips" and len(argv) == 6:
        check_skips(*argv[3:6])
    elif what == "outputs" and len(argv) in (8, 9):
        check_outputs(fields, *argv[3:8], with_os=argv[8:] == ["os"])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
