"""Where the test suite's time goes: wall and CPU time per test and per file (issue 35, item 6).

As a pytest plugin it appends one JSON line per test (node id, wall seconds, CPU seconds of the test process and of
the processes it waited for) to the file named by TEST_TIMES_OUT; it works under pytest-xdist too (each worker
appends its own lines). CPU time stays meaningful on a shared machine, where wall time does not.

    TEST_TIMES_OUT=times.jsonl PYTHONPATH=.ci python -m pytest --full -p test_times tests/...
    python .ci/test_times.py times.jsonl [--top 30]     # the per-file table, then the slowest tests by CPU
"""

import argparse
import collections
import json
import os
import resource
import sys
import time

import pytest


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    wall, cpu = time.perf_counter(), _cpu_seconds()
    yield
    out = os.environ.get("TEST_TIMES_OUT")
    if out:
        line = json.dumps([item.nodeid, round(time.perf_counter() - wall, 3), round(_cpu_seconds() - cpu, 3)])
        with open(out, "a", encoding="utf-8") as file:
            file.write(line + "\n")


def table(rows: list, top: int) -> str:
    files = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for node, wall, cpu in rows:
        entry = files[node.split("::")[0]]
        entry[0] += 1
        entry[1] += wall
        entry[2] += cpu
    lines = [f"{len(rows)} tests: {sum(r[1] for r in rows):.0f} s wall, {sum(r[2] for r in rows):.0f} s CPU", "",
             f"{'file':<48} {'tests':>5} {'wall s':>8} {'CPU s':>8}"]
    for name, (count, wall, cpu) in sorted(files.items(), key=lambda kv: (-kv[1][2], kv[0])):
        lines.append(f"{name:<48} {count:>5} {wall:>8.1f} {cpu:>8.1f}")
    lines += ["", f"the {top} slowest tests by CPU time", f"{'CPU s':>7} {'wall s':>7}  test"]
    for node, wall, cpu in sorted(rows, key=lambda r: (-r[2], r[0]))[:top]:
        lines.append(f"{cpu:>7.1f} {wall:>7.1f}  {node}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Per-file and per-test times from a TEST_TIMES_OUT file.")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    rows = []
    for name in args.files:
        with open(name, encoding="utf-8") as file:
            rows += [json.loads(line) for line in file if line.strip()]
    print(table(rows, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
