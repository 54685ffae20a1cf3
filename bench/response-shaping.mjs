// Response shaping (issue 28, the API contract's §19): what shaping adds per call, how fast a hostile filter
// is stopped, and how many tokens a one-line filter saves on list operations of real APIs.
//   ./run build && node bench/response-shaping.mjs [calls=400]
import { readFileSync, readdirSync } from "node:fs";
import { sample } from "openapi-sampler";
import { parse as parseYaml } from "yaml";
import {
  applyFilter,
  compileFilter,
  countTokens,
  DEFAULT_MAX_RESULT_TOKENS,
  fitToTokens,
  sharedSandbox,
} from "@mcpsm/response-shaping";

const calls = Number(process.argv[2] ?? 400);
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const compiled = async (language, expression) => {
  const o = await compileFilter({ language, expression });
  if (!o.ok) throw new Error(o.problem.message);
  return o.filter;
};

// 1. Cost per call: parse is the runtime's already; shaping = filter + budget check (+ cut when over).
const record = (i) => ({
  id: `cus_${i.toString(36)}`,
  object: "customer",
  email: `user${i}@example.com`,
  name: `Customer ${i}`,
  created: 1700000000 + i,
  livemode: false,
  metadata: { plan: "pro", seats: i % 17 },
  address: { city: "Berlin", country: "DE", line1: `${i} Main Street`, postal_code: "10115" },
});
const answerOf = (bytes) => {
  const data = [];
  while (JSON.stringify(data).length < bytes) data.push(record(data.length));
  return { object: "list", data, has_more: true, url: "/v1/customers" };
};
const shape = async (filter, value, text) => {
  const filtered = filter === undefined ? { ok: true, value, text } : await applyFilter(filter, value, { text });
  return fitToTokens(filtered.value, DEFAULT_MAX_RESULT_TOKENS, { text: filtered.text });
};
const costRows = [];
for (const [label, bytes] of [
  ["10 KB", 10_000],
  ["1 MB", 1_000_000],
]) {
  const value = answerOf(bytes);
  const text = JSON.stringify(value);
  for (const [name, filter] of [
    ["no filter (budget check, cut when over)", undefined],
    [
      "JMESPath `data[*].{id: id, email: email}` (in-process)",
      await compiled("jmespath", "data[*].{id: id, email: email}"),
    ],
    [
      "JMESPath `data[*].{id: id, name: pad_right(name, `2`)}` (sandbox)",
      await compiled("jmespath", "data[*].{id: id, name: pad_right(name, `2`)}"),
    ],
    ["jq `.data | map({id, email})` (sandbox)", await compiled("jq", ".data | map({id, email})")],
  ]) {
    const n = bytes > 100_000 ? Math.max(20, calls / 10) : calls;
    const times = [];
    for (let i = 0; i < n + 5; i++) {
      const t0 = performance.now();
      await shape(filter, value, text);
      if (i >= 5) times.push(performance.now() - t0);
    }
    costRows.push(`| ${label} (${text.length} B) | ${name} | ${p50(times).toFixed(3)} |`);
  }
}
console.log("| answer | shaping | p50 ms |\n|---|---|---|");
console.log(costRows.join("\n"));

// 2. Hostile filters: time from the call to its over-budget outcome, and the event loop's worst gap meanwhile.
console.log("\n| hostile filter | outcome | stopped after ms | worst event-loop gap ms |\n|---|---|---|---|");
for (const [language, expression] of [
  ["jq", "def f: f; f"],
  ["jq", "[range(1e9)]"],
  ["jmespath", Array.from({ length: 40 }, () => "[@,@]").join(".")],
]) {
  const filter = await compiled(language, expression);
  let last = performance.now();
  let worst = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  const outcome = await applyFilter(filter, { a: 1 });
  const took = performance.now() - t0;
  clearInterval(ticker);
  const shown = expression.length > 30 ? `${expression.slice(0, 27)}...` : expression;
  console.log(
    `| ${language} \`${shown}\` | ${outcome.ok ? "ok" : outcome.reason} | ${took.toFixed(1)} | ${worst.toFixed(1)} |`,
  );
}

// 2b. Other calls while a hostile filter runs again and again: p50/p99 of in-process shaping of a 10 KB
// answer (each call awaited, as a request would), idle and under a hostile jq loop.
{
  const value = answerOf(10_000);
  const text = JSON.stringify(value);
  const cheap = await compiled("jmespath", "data[*].{id: id, email: email}");
  const hostile = await compiled("jq", "def f: f; f");
  const measure = async () => {
    const times = [];
    const until = performance.now() + 1500;
    while (performance.now() < until) {
      const t0 = performance.now();
      await shape(cheap, value, text);
      await new Promise((r) => setImmediate(r));
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return `${times.length} calls, p50 ${times[Math.floor(times.length / 2)].toFixed(3)} ms, p99 ${times[Math.floor(times.length * 0.99)].toFixed(3)} ms`;
  };
  const idle = await measure();
  let stop = false;
  let stopped = 0;
  const loop = (async () => {
    while (!stop) if (!(await applyFilter(hostile, value)).ok) stopped += 1;
  })();
  const underAttack = await measure();
  stop = true;
  await loop;
  console.log(
    `\nOther calls (in-process JMESPath, 10 KB): idle ${idle}; with a hostile jq filter run again and again (${stopped} runs stopped) ${underAttack}`,
  );
}

// 3. Token savings on list operations of real APIs: an answer of 50 items sampled from the operation's
// response schema, and a one-line JMESPath keeping what a task needs (identifier, name, state).
const corpus = "/work/shared/openapi-corpus/docs";
const KEEP = ["id", "name", "title", "login", "status", "state", "email", "key", "display_name", "slug"];
const rows = [];
const resolve = (spec, node) => {
  let n = node;
  for (let i = 0; i < 10 && n?.$ref; i++)
    n = n.$ref
      .slice(2)
      .split("/")
      .reduce((o, k) => o?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], spec);
  return n;
};
for (const file of readdirSync(corpus).sort()) {
  let spec;
  try {
    const text = readFileSync(`${corpus}/${file}`, "utf8");
    spec = file.endsWith(".json") ? JSON.parse(text) : parseYaml(text, { maxAliasCount: -1 });
  } catch {
    continue;
  }
  let taken = 0;
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    if (taken >= 2 || rows.length >= 20) break;
    const op = item.get;
    const ok = op?.responses?.["200"];
    const schema = resolve(spec, ok?.content?.["application/json"]?.schema ?? ok?.schema);
    if (schema === undefined) continue;
    // The list: the answer itself, or its one array property of objects.
    let listPath;
    let itemSchema;
    if (resolve(spec, schema).type === "array") [listPath, itemSchema] = ["", resolve(spec, schema.items)];
    else
      for (const [k, v] of Object.entries(resolve(spec, schema).properties ?? {})) {
        const r = resolve(spec, v);
        if (r?.type === "array" && resolve(spec, r.items)?.properties)
          [listPath, itemSchema] = [k, resolve(spec, r.items)];
      }
    const fields = Object.keys(itemSchema?.properties ?? {})
      .filter((f) => KEEP.includes(f))
      .slice(0, 3);
    if (fields.length === 0 || Object.keys(itemSchema.properties).length < 5) continue;
    let answer;
    try {
      answer = sample(schema, { skipReadOnly: false, skipWriteOnly: true, skipNonRequired: false }, spec);
    } catch {
      continue;
    }
    const items = listPath === "" ? answer : answer?.[listPath];
    if (!Array.isArray(items) || items.length === 0) continue;
    const many = Array.from({ length: 50 }, () => items[0]);
    if (listPath === "") answer = many;
    else answer[listPath] = many;
    const expression = `${listPath === "" ? "[*]" : `${JSON.stringify(listPath).length === listPath.length + 2 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(listPath) ? listPath : JSON.stringify(listPath)}[*]`}.{${fields.map((f) => `${f}: ${f}`).join(", ")}}`;
    const filter = await compiled("jmespath", expression);
    const out = await applyFilter(filter, answer);
    if (!out.ok) continue;
    const before = countTokens(JSON.stringify(answer));
    const after = countTokens(out.text);
    rows.push({ api: file.replace(/\.(json|ya?ml)$/, ""), op: `GET ${path}`, expression, before, after });
    taken += 1;
  }
}
console.log("\n| API | operation | filter | tokens before | after | cut |\n|---|---|---|---|---|---|");
for (const r of rows)
  console.log(
    `| ${r.api} | \`${r.op}\` | \`${r.expression}\` | ${r.before} | ${r.after} | ${(100 * (1 - r.after / r.before)).toFixed(0)}% |`,
  );
const totalBefore = rows.reduce((s, r) => s + r.before, 0);
const totalAfter = rows.reduce((s, r) => s + r.after, 0);
const cuts = rows.map((r) => 1 - r.after / r.before).sort((a, b) => a - b);
console.log(
  `\n${rows.length} operations: ${totalBefore} → ${totalAfter} tokens in all (${(100 * (1 - totalAfter / totalBefore)).toFixed(0)}% cut); median cut ${(100 * cuts[Math.floor(cuts.length / 2)]).toFixed(0)}%, smallest ${(100 * cuts[0]).toFixed(0)}%`,
);
await sharedSandbox().close();
