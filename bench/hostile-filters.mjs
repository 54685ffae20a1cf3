// Issue 28's hostile response filters against the built service: each filter is sent TIMES times in a row,
// then TIMES times 4 at a time, through `POST /providers/{id}/tools/{toolID}/shape-preview` and through
// tools/call of a tool carrying it, while /healthz is probed every 100 ms and a victim tool (a cheap jq
// filter, another tenant's server) is called every 100 ms. Prints per filter and path: the answers, /healthz
// p99 and worst latency, the victim's p99 and worst, and the service's RSS before and after. The service is
// `node apps/api/dist/main.js` (the launcher, with its memory settings), in-memory store, dev auth.
//
//   ./run build && node bench/hostile-filters.mjs [times=20] [only rows whose label contains this]
//
// Goals (issue 28): every hostile filter stopped (a 400 at responseFilter.expression naming the budget, or
// a tool error naming the tool and the budget), /healthz p99 under 100 ms and unchanged from idle, the
// process alive, RSS back near the start once idle.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const TIMES = Number(process.argv[2] ?? 20);
const ONLY = process.argv[3] ?? "";
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (x) => `${x.toFixed(0)} ms`;

// The upstream: a small answer, and a list of 5,000 records (about 780 KB, under the 1 MiB answer limit).
const SMALL = JSON.stringify({ id: "a1", name: "Ann", tags: ["x", "y"] });
const BIG_VALUE = {
  data: Array.from({ length: 5000 }, (_, i) => ({
    id: `id${i}`,
    name: `Name ${i}`,
    email: `u${i}@example.com`,
    bio: "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor",
    n: i,
  })),
};
const BIG = JSON.stringify(BIG_VALUE);
const upstream = createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(req.url?.startsWith("/big") ? BIG : SMALL);
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;

const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-"));
const port = await new Promise((resolve) => {
  const probe = createNetServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const child = spawn(process.execPath, [new URL("../apps/api/dist/main.js", import.meta.url).pathname], {
  env: {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    UPSTREAM_ALLOWED_NETWORKS: "127.0.0.0/8",
    RATE_LIMIT_ENABLED: "false",
  },
  stdio: ["ignore", "ignore", "pipe"],
});
// jq's WebAssembly writes "Aborted()" to stderr when its memory cap stops it; count those, show the rest.
let aborts = 0;
child.stderr.on("data", (chunk) => {
  const text = chunk.toString().replace(/Aborted\(\)[^\n]*\n?/g, () => {
    aborts += 1;
    return "";
  });
  if (text.trim() !== "") process.stderr.write(text);
});
const service = `http://127.0.0.1:${port}`;
for (;;) {
  try {
    if ((await fetch(`${service}/healthz`)).ok) break;
  } catch {}
  await sleep(100);
}
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) * 1024;

const tenant = async (subject) => {
  const token = await mintDevToken(dataDir, { subject });
  const api = async (path, body) => {
    const res = await fetch(`${service}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
  };
  const { body } = await api("/providers", { provider: { name: `Upstream of ${subject}`, baseURL: upstreamUrl } });
  return { api, providerId: body.provider.id };
};

const connect = async (serverId, token) => {
  const client = new Client({ name: "hostile-filters", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

/** A server of `tools` ([{name, path, responseFilter?}]) of a tenant, and an SDK client on it. */
const serverWith = async ({ api, providerId }, name, tools) => {
  const ids = [];
  for (const tool of tools) {
    const created = await api(`/providers/${providerId}/tools`, { tool: { method: "GET", ...tool } });
    if (created.status !== 201) throw new Error(`${tool.name}: ${created.status} ${JSON.stringify(created.body)}`);
    ids.push(created.body.tool.id);
  }
  const server = await api("/servers", {
    server: { name, providers: [{ id: providerId, tools: ids.map((id) => ({ id })) }] },
  });
  const token = await api(`/servers/${server.body.server.id}/tokens`, { token: { name: "agent" } });
  return { ids, client: await connect(server.body.server.id, token.body.token.value) };
};

const twice = (n, part) => Array.from({ length: n }, () => part).join(",");
// label, language, expression, upstream path / sample.
const HOSTILE = [
  ["deep recursion: jq `def f: f; f`", "jq", "def f: f; f", "small"],
  ["endless generator: jq `[range(1e9)]`", "jq", "[range(1e9)]", "small"],
  [
    'exponential string: jq `reduce range(40) as $i ("x"; . + .)`',
    "jq",
    'reduce range(40) as $i ("x"; . + .)',
    "small",
  ],
  ["huge output from a small input: jq `[limit(1e6; repeat(.))]`", "jq", "[limit(1000000; repeat(.))]", "small"],
  ["deep nesting: jq `reduce range(1e5) as $i (0; [.])`", "jq", "reduce range(100000) as $i (0; [.])", "small"],
  ["16 copies of a 780 KB answer: jq `[.,.,…]`", "jq", `[${twice(16, ".")}]`, "big"],
  [
    "2^40 copies: JMESPath `[@,@].[@,@]…` ×40",
    "jmespath",
    Array.from({ length: 40 }, () => "[@,@]").join("."),
    "small",
  ],
  ["16 copies of a 780 KB answer: JMESPath `[@,@,…]` (cost-bounded)", "jmespath", `[${twice(16, "@")}]`, "big"],
];

const attacker = await tenant("attacker");
const victimTenant = await tenant("victim");
const victim = await serverWith(victimTenant, "Victim", [
  { name: "victimIds", path: "/small", responseFilter: { language: "jq", expression: "{id, name}" } },
]);
const attack = await serverWith(
  attacker,
  "Attack",
  HOSTILE.map(([, language, expression, kind], i) => ({
    name: `hostile${i}`,
    path: `/${kind}`,
    responseFilter: { language, expression },
  })),
);

/** Calls `run` every 100 ms (each awaited) until stopped; answers the latencies. */
const every100ms = (run) => {
  const latencies = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const started = performance.now();
      await run();
      latencies.push(performance.now() - started);
      await sleep(100);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return latencies.sort((a, b) => a - b);
    },
  };
};
const p99 = (sorted) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
const healthz = async () => (await fetch(`${service}/healthz`)).arrayBuffer();
const victimCall = async () => {
  const result = await victim.client.callTool({ name: "victimIds", arguments: {} });
  if (result.isError) console.log(`  victim failed: ${JSON.stringify(result.content).slice(0, 200)}`);
};

const measure = async (label, send) => {
  const before = rss();
  const probe = every100ms(healthz);
  const victims = every100ms(victimCall);
  const answers = new Map();
  let example = "";
  const count = (key, text) => {
    answers.set(key, (answers.get(key) ?? 0) + 1);
    example = text;
  };
  const started = performance.now();
  for (let i = 0; i < TIMES; i++) count(...(await send()));
  for (let i = 0; i < TIMES; i += 4) for (const r of await Promise.all([0, 1, 2, 3].map(() => send()))) count(...r);
  const took = performance.now() - started;
  const [h, v] = [await probe.stop(), await victims.stop()];
  console.log(
    `${label}: ${[...answers].map(([k, n]) => `${n}× ${k}`).join(", ")} in ${(took / 1000).toFixed(1)} s; ` +
      `/healthz p99 ${ms(p99(h))}, worst ${ms(h.at(-1))} (${h.length} probes); ` +
      `victim call p99 ${ms(p99(v))}, worst ${ms(v.at(-1))}; RSS ${mb(before)} → ${mb(rss())}`,
  );
  console.log(`  e.g. ${example.slice(0, 200)}`);
};

const preview = (toolId, body) => async () => {
  const res = await attacker.api(`/providers/${attacker.providerId}/tools/${toolId}/shape-preview`, body);
  const path = res.body?.errors?.[0]?.path;
  return [`${res.status}${path === undefined ? "" : ` at ${path}`}`, JSON.stringify(res.body)];
};
const call = (name) => async () => {
  const result = await attack.client.callTool({ name, arguments: {} });
  const text = JSON.stringify(result.content);
  const limit = /ran past its budget|larger than its budget|failed/.exec(text)?.[0] ?? "?";
  return [result.isError ? `tool error (${limit})` : "answered", text];
};

const startRss = rss();
console.log(
  `service RSS at start: ${mb(startRss)}; each filter ${TIMES} times in a row, then ${TIMES} times 4 at a time`,
);
{
  // The baseline: /healthz and the victim for 5 s with no attack.
  const probe = every100ms(healthz);
  const victims = every100ms(victimCall);
  await sleep(5000);
  const [h, v] = [await probe.stop(), await victims.stop()];
  console.log(
    `idle, 5 s: /healthz p99 ${ms(p99(h))}, worst ${ms(h.at(-1))} (${h.length} probes); ` +
      `victim call p99 ${ms(p99(v))}, worst ${ms(v.at(-1))}`,
  );
}
for (const [i, [label, language, expression, kind]] of HOSTILE.entries()) {
  if (!label.includes(ONLY)) continue;
  const sample = kind === "big" ? BIG_VALUE : JSON.parse(SMALL);
  await measure(
    `shape-preview, ${label}`,
    preview(attack.ids[i], { sample, responseFilter: { language, expression } }),
  );
  await measure(`tools/call, ${label}`, call(`hostile${i}`));
}
const endRss = rss();
await sleep(15_000);
console.log(
  `service RSS: start ${mb(startRss)}, end of the run ${mb(endRss)}, 15 s later ${mb(rss())}; ` +
    `jq "Aborted()" lines on stderr: ${aborts}`,
);
await attack.client.close();
await victim.client.close();
child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
upstream.closeAllConnections();
upstream.close();
await rm(dataDir, { recursive: true, force: true });
