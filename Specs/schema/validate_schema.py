#!/usr/bin/env python3
"""Validate JSON instances against one JSON Schema (draft 2020-12).

Used by Tests/SpecModelTests/SchemaAgreementTests.swift, which converts spec YAML to JSON with the suite's
own loader. (It lives here rather than beside that test because SwiftPM warns about a file of unknown type
inside a test target.)

    validate_schema.py SCHEMA INSTANCE...

Prints one line per instance, in the order given:

    OK path
    INVALID path: $.json.path: message

and exits 0 whatever the instances hold. Exit status 2 is a usage error (wrong arguments, or a schema
that cannot be read or is not a valid draft 2020-12 schema); 3 means the jsonschema package is missing.
"""

import json
import sys

try:
    import jsonschema
    from jsonschema.exceptions import best_match
except ImportError:
    sys.stderr.write(
        "validate_schema.py: the Python package 'jsonschema' is not installed for "
        f"{sys.executable}; install it with 'pip install jsonschema' or 'apt-get install python3-jsonschema'\n")
    sys.exit(3)


def one_line(text):
    return " ".join(str(text).split())


def main(arguments):
    if len(arguments) < 2:
        sys.stderr.write("usage: validate_schema.py SCHEMA INSTANCE...\n")
        return 2
    schema_path, instance_paths = arguments[0], arguments[1:]
    try:
        with open(schema_path, encoding="utf-8") as file:
            schema = json.load(file)
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as error:
        sys.stderr.write(f"validate_schema.py: bad schema {schema_path}: {one_line(error)}\n")
        return 2
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for path in instance_paths:
        try:
            with open(path, encoding="utf-8") as file:
                instance = json.load(file)
        except (OSError, ValueError) as error:
            print(f"INVALID {path}: cannot read JSON: {one_line(error)}")
            continue
        error = best_match(validator.iter_errors(instance))
        if error is None:
            print(f"OK {path}")
        else:
            print(f"INVALID {path}: {error.json_path}: {one_line(error.message)}")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
