// Added latency of upstream OAuth on a tools/call: a tool whose provider has oauth2Config (client credentials,
// token cached) against the same tool on a provider without OAuth, same service, same upstream, same run.
//
//   ./run build && node bench/upstream-oauth-latency.mjs [calls=1000]
//
// Starts a local upstream (node:http, 127.0.0.1) that answers every request (and counts the bearer tokens it
// is sent), a minimal token endpoint (a JSON answer with a one-hour token: the bench measures the cached
// path, so it is hit once; the tests use a real oidc-provider), and the real service (apps/api, in-memory
// store). Rounds alternate (plain, oauth) so drift hits both alike. Prints median and p99 of each and the
// difference.
import { createServer } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { percentile, startLocalService, timeRounds } from "./lib/local-service.mjs";

const CALLS = Number(process.argv[2] ?? 1000);
const WARMUP = 200;

let tokenRequests = 0;
let bearerCalls = 0;
const payload = JSON.stringify({ id: 42, name: "widget" });
const upstream = createServer((req, res) => {
  if (req.url === "/token") {
    tokenRequests++;
    req.resume();
    res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store" });
    res.end(JSON.stringify({ access_token: `bench-token-${tokenRequests}`, token_type: "Bearer", expires_in: 3600 }));
    return;
  }
  if ((req.headers.authorization ?? "").startsWith("Bearer bench-token-")) bearerCalls++;
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(payload);
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;

const service = await startLocalService();
const { api } = service;
const tool = (name) => ({
  tool: {
    name,
    method: "GET",
    path: "/items/{id}",
    pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    oauth2Scopes: ["items:read"],
  },
});
const plain = (await api("/providers", { provider: { name: "Plain", baseURL: upstreamUrl } })).provider;
const secured = (
  await api("/providers", {
    provider: {
      name: "Secured",
      baseURL: upstreamUrl,
      oauth2Config: { clientID: "bench", clientSecret: "bench-client-secret", tokenURL: `${upstreamUrl}/token` },
    },
  })
).provider;
await api(`/providers/${plain.id}/tools`, tool("plainItem"));
await api(`/providers/${secured.id}/tools`, tool("securedItem"));
const { server } = await api("/servers", {
  server: { name: "Bench", providers: [{ id: plain.id }, { id: secured.id }] },
});
const { token } = await api(`/servers/${server.id}/tokens`, { token: { name: "bench" } });

const client = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${service.url}/mcp/${server.id}`), {
    requestInit: { headers: { Authorization: `Bearer ${token.value}` } },
  }),
);
const call = (name) => async () => {
  const result = await client.callTool({ name, arguments: { pathArgs: { id: "42" } } });
  if (result.isError) throw new Error(JSON.stringify(result));
};
const subjects = { plain: call("plainItem"), oauth: call("securedItem") };
const samples = await timeRounds(subjects, CALLS, WARMUP);
const pct = percentile;
const f = (ms) => `${ms.toFixed(3)} ms`;
console.log(
  `calls per subject: ${CALLS} (after ${WARMUP} warm-up), node ${process.version}, ${process.platform}/${process.arch}`,
);
const stats = Object.fromEntries(
  Object.entries(samples).map(([name, values]) => [name, { median: pct(values, 50), p99: pct(values, 99) }]),
);
console.log(`tools/call without OAuth     median ${f(stats.plain.median)}  p99 ${f(stats.plain.p99)}`);
console.log(
  `tools/call, cached token     median ${f(stats.oauth.median)}  p99 ${f(stats.oauth.p99)}  added: median ${f(
    stats.oauth.median - stats.plain.median,
  )}, p99 ${f(stats.oauth.p99 - stats.plain.p99)}`,
);
console.log(`token endpoint requests: ${tokenRequests}; upstream calls with the bearer token: ${bearerCalls}`);

await client.close();
await service.close();
upstream.closeAllConnections();
upstream.close();
