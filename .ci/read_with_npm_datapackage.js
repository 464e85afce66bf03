// Reads every resource of datapackage.json with the npm `datapackage` library (Data Package v1),
// an independent client of the Frictionless specs: each table's rows, cast to its Table Schema,
// must match the number of lines in its file and its header must be the schema's field names.
// Usage: node .ci/read_with_npm_datapackage.js PACKAGE_DIR   (with `datapackage` installed)
const path = require("path");
const fs = require("fs");
const { Package } = require("datapackage");

async function main() {
  const root = path.resolve(process.argv[2] || ".");
  const dataPackage = await Package.load(path.join(root, "datapackage.json"), { basePath: root });
  if (!dataPackage.valid) {
    throw new Error("descriptor not valid: " + dataPackage.errors.map(String).join("; "));
  }
  let tables = 0;
  for (const resource of dataPackage.resources) {
    if (!resource.tabular) throw new Error(`${resource.name}: not read as a tabular resource`);
    const rows = await resource.read({ keyed: true, cast: true });
    const lines = fs.readFileSync(path.join(root, resource.descriptor.path), "utf8").split("\n").filter((l) => l.length);
    const fields = resource.schema.fields.map((f) => f.name);
    const header = Object.keys(rows[0] || {});
    if (rows.length && header.join(",") !== fields.join(",")) {
      throw new Error(`${resource.name}: header ${header} is not the schema's fields ${fields}`);
    }
    // every record is one line except where a quoted cell holds a line break (none do)
    if (rows.length !== lines.length - 1) {
      throw new Error(`${resource.name}: ${rows.length} rows read, the file has ${lines.length - 1}`);
    }
    tables += 1;
  }
  console.log(`npm datapackage: ${tables} tabular resources read and cast, no error`);
}

main().catch((error) => { console.error(`npm datapackage: ${error.message || error}`); process.exit(1); });
