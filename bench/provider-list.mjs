// GET /providers?limit=50 at 100 and at 100,000 providers in the tenant: does a list grow with the tenant?
//
//   ./run build && node bench/provider-list.mjs [connections=1,16] [seconds=8]
//
// Environment: PG_ADMIN (default postgres://postgres@127.0.0.1:5432/postgres; a throwaway database is created
// on it and dropped at the end; psql must be on the PATH).
//
// Starts the built service (a child process, PostgreSQL server, LOG_LEVEL=info to /dev/null), creates one
// provider with two tools through the API in each of two tenants, grows them to 100 and to 100,000 providers
// by SQL copies of that row (names "<word> service <n>", one word in ten "billing", creation times 1 ms
// apart: as ../shared/perf does), then for each connection count measures the first page, a page 20 pages
// deep, and the first page filtered by nameContains=billing (10% of the big tenant). Prints req/s, p50, p99,
// CPU ms per request of the service and of its PostgreSQL backends, and the ratios the performance goals
// name: p50 at 100,000 over p50 at 100 (goal ≤ 1.5×), and filtered over p50 at 100 (goal ≤ 3×).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closedLoop, ms } from "./lib/closed-loop.mjs";
import { apiClient, newEncryptionKey, startServiceProcess } from "./lib/service-process.mjs";

const CONNECTIONS = (process.argv[2] ?? "1,16").split(",").map(Number);
const SECONDS = Number(process.argv[3] ?? 8);
const PG_ADMIN = process.env.PG_ADMIN ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DB = `mcpsm_bench_list_${randomBytes(4).toString("hex")}`;
const dbUrl = PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`);
const psql = (url, sql) =>
  execFileSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql], { encoding: "utf8" }).trim();

const WORDS = ["weather", "github", "billing", "crm", "search", "maps", "mail", "storage", "payments", "analytics"];
/** Grows the template's tenant to `total` providers (each with copies of the template's tools). */
const cloneProviders = (templateId, total) =>
  psql(
    dbUrl,
    `begin;
    create temp table new_providers on commit drop as
      select substr(md5(random()::text || g::text), 1, 11) as id, g,
             t.created_at + make_interval(secs => g / 1000.0) as at
      from providers t, generate_series(1, ${total - 1}) g where t.id = '${templateId}';
    insert into providers (id, tenant, created_at, updated_at, version, api_type, visibility_type, base_url,
                           document_url, icon_url, secret_prefix, name, description, oauth2_config)
      select n.id, t.tenant, n.at, n.at, t.version, t.api_type, t.visibility_type, t.base_url, t.document_url,
             t.icon_url, t.secret_prefix,
             (array[${WORDS.map((w) => `'${w}'`).join(",")}])[1 + n.g % ${WORDS.length}] || ' service ' || lpad(n.g::text, 6, '0'),
             t.description, t.oauth2_config
      from new_providers n, providers t where t.id = '${templateId}';
    insert into tools (id, provider_id, created_at, updated_at, method, path, name, title, description,
                       path_args_json_schema, query_args_json_schema, req_body_json_schema, headers, oauth2_scopes)
      select substr(md5(random()::text || n.id || x.id), 1, 11), n.id, n.at, n.at, x.method, x.path, x.name, x.title,
             x.description, x.path_args_json_schema, x.query_args_json_schema, x.req_body_json_schema, x.headers,
             x.oauth2_scopes
      from new_providers n, tools x where x.provider_id = '${templateId}';
    commit;
    analyze;`,
  );

const toolBody = (j) => ({
  tool: {
    name: `getItem${j}`,
    title: `Item lookup ${j}`,
    description: `Reads one item of collection ${j} by id.`,
    method: "GET",
    path: `/c${j}/items/{id}`,
    pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    queryArgsJSONSchema: { type: "object", properties: { verbose: { type: "boolean" } } },
  },
});

psql(PG_ADMIN, `create database ${DB}`);
const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-list-"));
let service;
try {
  service = await startServiceProcess({ dataDir, env: { DATABASE_URL: dbUrl, ENCRYPTION_KEY: newEncryptionKey() } });
  const tenants = [];
  for (const size of [100, 100_000]) {
    const sub = `list${size}`;
    const token = service.token(sub);
    const api = apiClient(service.url, token);
    const { provider } = await api("POST", "/providers", {
      provider: {
        name: "Template provider",
        baseURL: "https://api.weather.example/v1",
        description: "Forecasts by city",
      },
    });
    for (let j = 0; j < 2; j++) await api("POST", `/providers/${provider.id}/tools`, toolBody(j));
    const t0 = Date.now();
    cloneProviders(provider.id, size);
    const { matchCount } = await api("GET", "/providers?limit=1");
    console.error(`tenant ${sub}: ${matchCount} providers, seeded by SQL in ${Date.now() - t0} ms`);
    let deepToken = "";
    for (let page = 0; page < 20; page++) {
      const answer = await api(
        "GET",
        `/providers?limit=50${deepToken ? `&token=${encodeURIComponent(deepToken)}` : ""}`,
      );
      if (answer.nextToken === "") break;
      deepToken = answer.nextToken;
    }
    tenants.push({ size, token, deepToken });
  }
  const backends = () =>
    psql(PG_ADMIN, `select pid from pg_stat_activity where datname = '${DB}' and pid <> pg_backend_pid()`)
      .split("\n")
      .filter(Boolean)
      .map(Number);
  const cpu = { service: () => [service.pid], postgres: backends };

  const rows = [];
  for (const connections of CONNECTIONS) {
    const measure = async (label, size, query) => {
      const tenant = tenants.find((t) => t.size === size);
      const headers = { Authorization: `Bearer ${tenant.token}` };
      const result = await closedLoop({
        url: service.url,
        next: () => ({ path: `/providers?${query(tenant)}`, headers }),
        connections,
        warmupMs: 2000,
        durationMs: SECONDS * 1000,
        cpu,
      });
      const row = { label, connections, ...result };
      rows.push(row);
      console.error(
        `c=${connections} ${label}: ${result.rps.toFixed(0)} req/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms, ` +
          `cpu/req service ${ms(result.cpuMsPerRequest.service)} ms, postgres ${ms(result.cpuMsPerRequest.postgres)} ms`,
      );
      return row;
    };
    const small = await measure("100 providers, first page", 100, () => "limit=50");
    const big = await measure("100,000 providers, first page", 100_000, () => "limit=50");
    const deep = await measure(
      "100,000 providers, page 21",
      100_000,
      (t) => `limit=50&token=${encodeURIComponent(t.deepToken)}`,
    );
    const filtered = await measure(
      "100,000 providers, nameContains=billing (10%)",
      100_000,
      () => "limit=50&nameContains=billing",
    );
    small.ratio = 1;
    big.ratio = big.p50 / small.p50;
    deep.ratio = deep.p50 / small.p50;
    filtered.ratio = filtered.p50 / small.p50;
  }
  console.log("| case | c | req/s | p50 ms | p99 ms | service CPU ms/req | postgres CPU ms/req | p50 / p50 at 100 |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows)
    console.log(
      `| ${r.label} | ${r.connections} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.cpuMsPerRequest.service)} | ${ms(r.cpuMsPerRequest.postgres)} | ${r.ratio.toFixed(2)}× |`,
    );
  console.log(
    `\nload average at the end: ${(await import("node:os"))
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
} finally {
  await service?.stop();
  psql(PG_ADMIN, `drop database if exists ${DB} with (force)`);
  await rm(dataDir, { recursive: true, force: true });
}
