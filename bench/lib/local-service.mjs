// What the latency benches share: the real service (apps/api, in-memory store, dev auth) on a random local
// port, with its tenant rate limit off (a bench makes thousands of calls a minute from one tenant) and
// upstreams on 127.0.0.0/8 allowed, plus a management-API helper; a one-item local upstream and its provider;
// alternating timing rounds and percentiles.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { DEFAULT_SECURITY_SETTINGS } from "@mcpsm/api/dist/config/security-config.js";
import { startService } from "@mcpsm/api/dist/service.js";
import { defaultMcpSettings } from "@mcpsm/mcp-runtime";
import pino from "pino";

/** `overrides`: settings of the service's configuration a bench is about (e.g. `quotas`). */
export const startLocalService = async (overrides = {}) => {
  const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-"));
  const service = await startService(
    localConfig(dataDir, {
      mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"] }),
      security: { ...DEFAULT_SECURITY_SETTINGS, rateLimit: { ...DEFAULT_SECURITY_SETTINGS.rateLimit, enabled: false } },
      ...overrides,
    }),
    { logger: pino({ level: "silent" }) },
  );
  const admin = await mintDevToken(dataDir, { subject: "bench" });
  /** POST a management-API body, answering its status and JSON whatever the status. */
  const post = async (path, body) => {
    const response = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
  };
  /** POST a management-API body, answering the JSON (throws on a non-2xx answer). */
  const api = async (path, body) => {
    const answer = await post(path, body);
    if (answer.status < 200 || answer.status > 299)
      throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const close = async () => {
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  return { url: service.url, api, post, close, token: admin };
};

/** A local upstream answering every request with one small JSON item; `close()` at the end. */
export const startItemUpstream = async () => {
  const payload = JSON.stringify({ id: 42, name: "widget", tags: ["a", "b"], price: 9.99 });
  const upstream = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(payload);
  });
  await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const close = () => {
    upstream.closeAllConnections();
    upstream.close();
  };
  return { url: `http://127.0.0.1:${upstream.address().port}`, close };
};

/** A provider on `upstreamUrl` with one tool, getItem (GET /items/{id}?verbose), through the management API. */
export const addItemProvider = async (api, upstreamUrl) => {
  const { provider } = await api("/providers", { provider: { name: "Bench", baseURL: upstreamUrl } });
  await api(`/providers/${provider.id}/tools`, {
    tool: {
      name: "getItem",
      method: "GET",
      path: "/items/{id}",
      pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      queryArgsJSONSchema: { type: "object", properties: { verbose: { type: "boolean" } } },
    },
  });
  return provider;
};

/** Times `subjects` ({name: async () => …}) one call at a time in alternating rounds; answers ms samples by name. */
export const timeRounds = async (subjects, calls, warmup) => {
  const samples = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
  for (let i = 0; i < warmup; i++) for (const run of Object.values(subjects)) await run();
  for (let i = 0; i < calls; i++)
    for (const [name, run] of Object.entries(subjects)) {
      const started = process.hrtime.bigint();
      await run();
      samples[name].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  return samples;
};

/** The p-th percentile (0-100) of `values`. */
export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
