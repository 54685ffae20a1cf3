// How long a server export and an import of it into another tenant take, for a server of many tools.
//
//   ./run build && node bench/server-export-import.mjs [tools=300] [runs=5]
//
// The real service (apps/api, embedded PGlite in a temporary DATA_DIR, dev auth). One provider with `tools`
// tools (a path placeholder, query and body schemas, a header reading a variable) and a prompt and a resource;
// a server choosing every tool. Then `runs` times (after one warm-up): GET /servers/{id}/export, and
// POST /servers/import of that document into a fresh tenant (creates the provider and every tool in one
// transaction). Prints the document's size and the median and worst time of each.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { startService } from "@mcpsm/api/dist/service.js";
import pino from "pino";

const TOOLS = Number(process.argv[2] ?? 300);
const RUNS = Number(process.argv[3] ?? 5);

const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-"));
const service = await startService(localConfig(dataDir), { logger: pino({ level: "silent" }) });
const call = async (token, method, path, body) => {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text;
};
const owner = await mintDevToken(dataDir, { subject: "bench-owner" });
const { provider } = JSON.parse(
  await call(owner, "POST", "/providers", { provider: { name: "Bench", baseURL: "https://api.bench.example/v1" } }),
);
for (let i = 0; i < TOOLS; i++)
  await call(owner, "POST", `/providers/${provider.id}/tools`, {
    tool: {
      name: `getItem${i}`,
      title: `Get item ${i}`,
      description: `Reads item ${i} of the catalogue, with its prices and stock levels.`,
      method: i % 2 === 0 ? "GET" : "POST",
      path: `/catalogue/${i}/items/{itemId}`,
      pathArgsJSONSchema: { type: "object", properties: { itemId: { type: "string" } }, required: ["itemId"] },
      queryArgsJSONSchema: { type: "object", properties: { expand: { type: "array", items: { type: "string" } } } },
      reqBodyJSONSchema: { type: "object", properties: { note: { type: "string", maxLength: 200 } } },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, not a template
      headers: [{ key: "X-Api-Key", value: "${API_BENCH_EXAMPLE_KEY}" }],
    },
  });
await call(owner, "POST", `/providers/${provider.id}/prompts`, { prompt: { name: "Summarise" } });
const { server } = JSON.parse(
  await call(owner, "POST", "/servers", { server: { name: "Catalogue", providers: [{ id: provider.id }] } }),
);

const stats = (label, times) => {
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `${label}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms, worst ${sorted.at(-1).toFixed(0)} ms over ${times.length} runs`,
  );
};
const exports = [];
const imports = [];
let document = "";
for (let i = 0; i < RUNS + 1; i++) {
  let started = performance.now();
  document = await call(owner, "GET", `/servers/${server.id}/export`);
  if (i > 0) exports.push(performance.now() - started);
  const tenant = await mintDevToken(dataDir, { subject: `bench-import-${i}` });
  started = performance.now();
  await call(tenant, "POST", "/servers/import", document);
  if (i > 0) imports.push(performance.now() - started);
}
console.log(`document: ${TOOLS} tools, ${(Buffer.byteLength(document) / 1024).toFixed(0)} KiB`);
stats("GET /servers/{id}/export", exports);
stats("POST /servers/import (new provider and every tool)", imports);
await service.close();
await rm(dataDir, { recursive: true, force: true });
