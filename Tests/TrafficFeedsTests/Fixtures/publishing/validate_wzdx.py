"""Validates WZDx documents against the official WZDx 4.2 JSON Schemas (draft-07).

Usage: validate_wzdx.py SCHEMA_DIR GEOJSON_SCHEMA_DIR FILE...

Every schema file of both folders is put in a local store under its `$id`, so that the
`$ref`s between them resolve without a network. Prints one line per file: `ok FILE` or
`invalid FILE: PATH: MESSAGE` (every error), and exits 1 when any file is invalid.
Runs with Debian's python3-jsonschema (4.10) and with later versions.
"""
import json
import pathlib
import sys

import jsonschema


def main():
    schema_dir, geojson_dir, *files = sys.argv[1:]
    store = {}
    for folder in (schema_dir, geojson_dir):
        for path in sorted(pathlib.Path(folder).glob("*.json")):
            schema = json.loads(path.read_text(encoding="utf-8"))
            if "$id" in schema:
                store[schema["$id"]] = schema
    root = json.loads((pathlib.Path(schema_dir) / "WorkZoneFeed.json").read_text(encoding="utf-8"))
    resolver = jsonschema.RefResolver.from_schema(root, store=store)
    validator = jsonschema.Draft7Validator(root, resolver=resolver)
    failed = False
    for name in files:
        document = json.loads(pathlib.Path(name).read_text(encoding="utf-8"))
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        if errors:
            failed = True
            for error in errors:
                path = "/".join(str(part) for part in error.absolute_path)
                print(f"invalid {name}: {path}: {error.message[:300]}")
        else:
            print(f"ok {name}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
