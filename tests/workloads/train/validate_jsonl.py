"""Validates every :::HETBENCH line of a log against docs/hetbench-jsonl.schema.json.

Usage: validate_jsonl.py SCHEMA LOG
Exit status: 0 when every line is valid (prints how many), 1 when some is not (prints each
problem), 3 when the jsonschema module is missing (Debian's python3-jsonschema).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("the jsonschema module is missing (python3-jsonschema)")
    sys.exit(3)

MARKER = ":::HETBENCH "


def main():
    schema_path, log_path = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    checked = 0
    with open(log_path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            at = line.find(MARKER)
            if at < 0:
                continue
            checked += 1
            try:
                event = json.loads(line[at + len(MARKER):])
            except json.JSONDecodeError as e:
                problems.append(f"line {number}: not JSON: {e}")
                continue
            for error in validator.iter_errors(event):
                path = "/".join(str(p) for p in error.absolute_path)
                problems.append(f"line {number}: {path or '(event)'}: {error.message}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"{checked} lines valid")


if __name__ == "__main__":
    main()
