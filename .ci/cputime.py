"""Run a command; print its wall time, CPU time and peak memory; exit with its status (.ci/run's stage timing).

Usage: python .ci/cputime.py LABEL -- COMMAND [ARG ...]

CPU time is user + system of the command and of every process it waited for (the kernel's account of the
process tree, wait4), so it stays meaningful when other work shares the machine and the wall time does not.
"""

import os
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    label, command = sys.argv[1], sys.argv[3:]
    start = time.monotonic()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    print(f"   ({label}: {wall:.0f} s wall, {usage.ru_utime + usage.ru_stime:.0f} s CPU "
          f"(user {usage.ru_utime:.0f} s, system {usage.ru_stime:.0f} s), peak {usage.ru_maxrss / 1024:.0f} MB)",
          flush=True)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) or os.WIFSIGNALED(status) else 1


if __name__ == "__main__":
    sys.exit(main())
