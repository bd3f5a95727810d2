"""Checks what ctest runs against what the test programs hold: one ctest test per doctest test case
(the programs' own --count), no test case twice, and every test with the whole thread environment.

Usage: one_test_per_case.py BUILD_DIR TEST_PROGRAM...
"""
import json
import os
import re
import subprocess
import sys

THREAD_VARIABLES = ("OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1", "MKL_NUM_THREADS=1")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def case_count(program):
    out = subprocess.run([program, "--count"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"test cases passing the current filters: (\d+)", out)
    if not found:
        fail(f"{program} --count said no count: {out!r}")
    return int(found.group(1))


def main():
    build, programs = sys.argv[1], [os.path.abspath(p) for p in sys.argv[2:]]
    shown = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True, check=True)
    tests = json.loads(shown.stdout)["tests"]
    held = {program: case_count(program) for program in programs}
    run = {program: [] for program in programs}
    for test in tests:
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        environment = properties.get("ENVIRONMENT", [])
        missing = [v for v in THREAD_VARIABLES if v not in environment]
        if missing:
            fail(f"test {test['name']!r} runs without {', '.join(missing)} (its environment: {environment})")
        command = test.get("command", [])
        if command and command[0] in run and "NMT_TEST_CASES_EXPECTED=1" in environment:
            run[command[0]].append(test["name"])
    for program, names in run.items():
        if len(names) != len(set(names)):
            fail(f"{program}: a test case is run by more than one ctest test")
        if len(names) != held[program]:
            fail(f"{program} holds {held[program]} test cases, ctest runs {len(names)} of them one by one")
        print(f"{program}: {held[program]} test cases, {len(names)} ctest tests")
    print(f"{len(tests)} ctest tests, each with {', '.join(THREAD_VARIABLES)}")


main()
