// Writes src/schema.ts from api/openapi.yaml with openapi-typescript, a
// `format: binary` member typed Blob (what fetch and FormData take) rather
// than string. `node scripts/generate.mjs --check` only compares.
import fs from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";

const doc = new URL("../../../api/openapi.yaml", import.meta.url);
const out = new URL("../src/schema.ts", import.meta.url);
const blob = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier("Blob"));

const ast = await openapiTS(doc, {
  transform(schema) {
    if (schema.format === "binary") return blob;
    return undefined;
  },
});
const text =
  "// Generated from api/openapi.yaml by scripts/generate.mjs (openapi-typescript); do not edit.\n\n" +
  astToString(ast);
if (process.argv.includes("--check")) {
  if (fs.readFileSync(out, "utf8") !== text) {
    console.error("src/schema.ts is not what api/openapi.yaml generates: run npm run generate");
    process.exit(1);
  }
} else {
  fs.writeFileSync(out, text);
}
