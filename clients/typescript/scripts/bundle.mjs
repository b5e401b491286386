// Bundles the client into one ES module for the demo map, which the binary
// embeds (web/map/guidepost-client.js). `--check` only compares, so a
// client change without a new bundle fails the tests.
import fs from "node:fs";
import { build } from "esbuild";

const out = new URL("../../../web/map/guidepost-client.js", import.meta.url);
const res = await build({
  entryPoints: [new URL("../src/index.ts", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  target: "es2020",
  legalComments: "none",
  write: false,
  banner: { js: "// The guidepost TypeScript client (clients/typescript), bundled by `npm run bundle`; do not edit." },
});
const text = res.outputFiles[0].text;
if (process.argv.includes("--check")) {
  if (!fs.existsSync(out) || fs.readFileSync(out, "utf8") !== text) {
    console.error("web/map/guidepost-client.js is not the bundle of src/: run npm run bundle");
    process.exit(1);
  }
} else {
  fs.writeFileSync(out, text);
}
