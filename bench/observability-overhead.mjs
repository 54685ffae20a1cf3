// Latency that metrics and tracing add to an MCP tools/call, same machine, same run.
//
//   ./run build && node bench/observability-overhead.mjs [calls=2000]
//
// Starts a local upstream and four instances of the real service (apps/api, in-memory store, dev auth):
// plain (no metrics listener, no OTLP endpoint: the default when unset), metrics (METRICS_PORT set), tracing
// (an OTLP/HTTP endpoint: a loopback sink that accepts and drops the spans) and both. Each composes the same
// one-tool server; calls go one at a time through the SDK client (2025-11-25 era), rounds alternating
// between the four so drift hits them alike. Prints median and p99 of each and the added latency over plain.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { startService } from "@mcpsm/api/dist/service.js";
import { DEFAULT_QUOTAS } from "@mcpsm/domain/use-cases";
import { defaultMcpSettings } from "@mcpsm/mcp-runtime";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Option } from "effect";
import pino from "pino";

const CALLS = Number(process.argv[2] ?? 2000);
const WARMUP = 200;

const listen = async (handler) => {
  const server = createServer(handler);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
};
const payload = JSON.stringify({ id: 42, name: "widget", tags: ["a", "b"], price: 9.99 });
const upstream = await listen((_req, res) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(payload);
});
let spansReceived = 0;
const sink = await listen((req, res) => {
  spansReceived++;
  req.resume();
  req.on("end", () => res.writeHead(200, { "Content-Type": "application/json" }).end("{}"));
});

const start = async (name, operations) => {
  const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-obs-"));
  const service = await startService(
    {
      port: 0,
      host: "127.0.0.1",
      dataDir,
      logLevel: "silent",
      auth: { mode: "dev", tenantClaim: "sub" },
      encryptionKey: Option.none(),
      quotas: DEFAULT_QUOTAS,
      mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"] }),
      operations: { auditRetentionDays: 90, metricsPort: undefined, ...operations },
    },
    { logger: pino({ level: "silent" }) },
  );
  const admin = await mintDevToken(dataDir, { subject: "bench" });
  const api = async (path, body) => {
    const response = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const { provider } = await api("/providers", { provider: { name: "Bench", baseURL: upstream.url } });
  await api(`/providers/${provider.id}/tools`, {
    tool: {
      name: "getItem",
      method: "GET",
      path: "/items/{id}",
      pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    },
  });
  const { server } = await api("/servers", { server: { name: "Bench", providers: [{ id: provider.id }] } });
  const { token } = await api(`/servers/${server.id}/tokens`, { token: { name: "bench" } });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp/${server.id}`), {
      requestInit: { headers: { Authorization: `Bearer ${token.value}` } },
    }),
  );
  const call = async () => {
    const result = await client.callTool({ name: "getItem", arguments: { pathArgs: { id: "42" } } });
    if (result.isError) throw new Error(JSON.stringify(result));
  };
  return { name, service, dataDir, client, call, samples: [] };
};

const tracesUrl = `${sink.url}/v1/traces`;
const targets = [
  await start("plain", {}),
  await start("metrics", { metricsPort: 0 }),
  await start("tracing", { tracesUrl }),
  await start("both", { metricsPort: 0, tracesUrl }),
];

for (let i = 0; i < WARMUP; i++) for (const t of targets) await t.call();
for (let i = 0; i < CALLS; i++)
  for (const t of targets) {
    const started = process.hrtime.bigint();
    await t.call();
    t.samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const f = (ms) => `${ms.toFixed(3)} ms`;
const base = targets[0];
console.log(`tools/call, ${CALLS} per instance (after ${WARMUP} warm-up), node ${process.version}`);
for (const t of targets) {
  const m = pct(t.samples, 50);
  const p99 = pct(t.samples, 99);
  const added =
    t === base
      ? ""
      : `  added: median ${f(m - pct(base.samples, 50))} (${(((m - pct(base.samples, 50)) / pct(base.samples, 50)) * 100).toFixed(1)}%), p99 ${f(p99 - pct(base.samples, 99))}`;
  console.log(`${t.name.padEnd(8)} median ${f(m)}  p99 ${f(p99)}${added}`);
}

for (const t of targets) {
  await t.client.close();
  await t.service.close();
  await rm(t.dataDir, { recursive: true, force: true });
}
console.log(`OTLP export requests received by the sink: ${spansReceived}`);
upstream.server.close();
sink.server.close();
