#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Validate JSON documents against a JSON Schema (draft 2020-12).

    json_schema_check.py SCHEMA FILE...

Exit 0 when every FILE ("-" for stdin) is valid; 1 with one line per
violation ("FILE: PATH: MESSAGE") otherwise; 2 on usage errors, an
unreadable file, invalid JSON or a schema that is itself invalid.  Uses
python3-jsonschema (Debian's package).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("json_schema_check: python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        if path == "-":
            return json.load(sys.stdin)
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("json_schema_check: %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    schema = load(argv[1])
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print("json_schema_check: %s is not a valid schema: %s" % (argv[1], e.message), file=sys.stderr)
        return 2
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in argv[2:]:
        for err in sorted(validator.iter_errors(load(path)), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in err.absolute_path) or "(document)"
            print("%s: %s: %s" % (path, where, err.message))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
