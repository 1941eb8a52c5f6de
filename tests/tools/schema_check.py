#!/usr/bin/env python3
"""schema_check.py SCHEMA FILE... — validate JSON lines against a JSON Schema.

A small validator for the part of JSON Schema (2020-12) that
docs/report.schema.json uses, with the standard library only: type, enum,
required, properties, additionalProperties, propertyNames, items,
prefixItems, minItems, maxItems, minimum, oneOf, dependentRequired and
local $ref.  A keyword it does not implement is an error, not ignored, so
the schema cannot grow a rule this checker silently skips.

Every line of every FILE ('-': stdin) must be one JSON value that the
schema accepts.  Prints "FILE:LINE: what is wrong at which path" for each
failure; exits 0 when all lines pass, 1 when one fails, 2 on bad usage or
an unreadable schema.
"""
import json
import sys

# Keywords that only annotate: they never make a value fail.
ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    # JSON has one number type; bool is an int in Python but not in JSON.
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


class SchemaError(Exception):
    """The schema itself uses something this checker does not know."""


class Checker:
    def __init__(self, root):
        self.root = root

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise SchemaError("only local $ref are supported: %s" % ref)
        node = self.root
        for part in ref[2:].split("/"):
            if not isinstance(node, dict) or part not in node:
                raise SchemaError("$ref %s does not resolve" % ref)
            node = node[part]
        return node

    def errors(self, schema, v, path):
        """The list of reasons v fails schema (empty: it passes)."""
        out = []
        for key in schema:
            if key not in ANNOTATIONS and key not in KEYWORDS:
                raise SchemaError("unsupported keyword %r at %s" % (key, path))
        if "$ref" in schema:
            out += self.errors(self.resolve(schema["$ref"]), v, path)
        t = schema.get("type")
        if t is not None and not TYPES[t](v):
            return out + ["%s: expected %s, got %s" % (path, t, json.dumps(v)[:60])]
        if "enum" in schema and not any(
                v == e and type(v) is type(e) for e in schema["enum"]):
            out.append("%s: %s is not one of %s" % (path, json.dumps(v)[:60],
                                                   schema["enum"]))
        if "minimum" in schema and TYPES["number"](v) and v < schema["minimum"]:
            out.append("%s: %s is below the minimum %s" % (path, v, schema["minimum"]))
        if "oneOf" in schema:
            results = [self.errors(s, v, path) for s in schema["oneOf"]]
            passing = sum(1 for r in results if not r)
            if passing != 1:
                detail = "; ".join(e for r in results for e in r[:2])
                out.append("%s: matches %d of the oneOf branches, not 1 (%s)"
                           % (path, passing, detail))
        if isinstance(v, dict):
            out += self.object_errors(schema, v, path)
        if isinstance(v, list):
            out += self.array_errors(schema, v, path)
        return out

    def object_errors(self, schema, v, path):
        out = []
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in v:
                out.append("%s: missing required field %r" % (path, k))
        for k, needs in schema.get("dependentRequired", {}).items():
            if k in v:
                for n in needs:
                    if n not in v:
                        out.append("%s: %r needs %r too" % (path, k, n))
        names = schema.get("propertyNames")
        for k, item in v.items():
            p = "%s.%s" % (path, k)
            if names is not None:
                out += self.errors(names, k, p + " (name)")
            if k in props:
                out += self.errors(props[k], item, p)
            elif "additionalProperties" in schema:
                extra = schema["additionalProperties"]
                if extra is False:
                    out.append("%s: field %r is not in the schema" % (path, k))
                elif extra is not True:
                    out += self.errors(extra, item, p)
        return out

    def array_errors(self, schema, v, path):
        out = []
        if "minItems" in schema and len(v) < schema["minItems"]:
            out.append("%s: %d items, at least %d expected" % (path, len(v), schema["minItems"]))
        if "maxItems" in schema and len(v) > schema["maxItems"]:
            out.append("%s: %d items, at most %d expected" % (path, len(v), schema["maxItems"]))
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(v):
            p = "%s[%d]" % (path, i)
            if i < len(prefix):
                out += self.errors(prefix[i], item, p)
            elif "items" in schema:
                out += self.errors(schema["items"], item, p)
        return out


KEYWORDS = {"$ref", "type", "enum", "minimum", "oneOf", "required", "properties",
            "additionalProperties", "dependentRequired", "propertyNames",
            "items", "prefixItems", "minItems", "maxItems"}


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: schema_check.py SCHEMA FILE...\n")
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            checker = Checker(json.load(f))
    except (OSError, ValueError) as e:
        sys.stderr.write("schema_check.py: %s: %s\n" % (argv[1], e))
        return 2
    failed = 0
    for name in argv[2:]:
        try:
            f = sys.stdin if name == "-" else open(name, encoding="utf-8")
        except OSError as e:
            sys.stderr.write("schema_check.py: %s: %s\n" % (name, e))
            return 2
        with f:
            for n, line in enumerate(f, 1):
                try:
                    value = json.loads(line)
                except ValueError as e:
                    print("%s:%d: not JSON: %s" % (name, n, e))
                    failed += 1
                    continue
                try:
                    errs = checker.errors(checker.root, value, "$")
                except SchemaError as e:
                    sys.stderr.write("schema_check.py: %s: %s\n" % (argv[1], e))
                    return 2
                for e in errs:
                    print("%s:%d: %s" % (name, n, e))
                failed += bool(errs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
