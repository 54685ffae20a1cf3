import { makePostgresStorage, startEmbeddedPostgres } from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import { expect } from "vitest";
import { embeddedDataDir } from "../../src/storage/open-storage.js";
import type { Client, Res } from "./harness.js";
import { toolWrite, uniq } from "./records.js";
import { encryptionKey, type ServiceProcess } from "./service-process.js";

// The workload and the checks of durability.test.ts: the fixture, the writers killed mid-flight, and what is
// read back through the API and from the tables.

export const serverUrl = process.env.TEST_DATABASE_URL || undefined;

/** Kill, restart and check this many times. */
export const CYCLES = 3;

/** Acknowledged writes of a cycle after which the process is killed. */
export const KILL_AFTER = 100;

/** Concurrent clients of the loop. */
export const WORKERS = 6;

/** Fixture: providers the servers link, each with tools, prompts and resources. */
export const FIXTURE = { providers: 4, tools: 4, prompts: 2, resources: 2 };

export type Row = Record<string, unknown>;

export type Query = (sql: string) => Promise<Array<Row>>;

export interface Target {
  readonly name: string;
  /** The environment of the service, and how to drop the database afterwards. */
  readonly open: () => Promise<{ readonly env: Record<string, string>; readonly dispose: () => Promise<void> }>;
  /** Runs SQL on the database directly (the service must be stopped for the embedded one). */
  readonly sql: <A>(env: Record<string, string>, dataDir: string, work: (query: Query) => Promise<A>) => Promise<A>;
}

export const withStorage = async <A>(url: string, work: (query: Query) => Promise<A>, poolSize?: 1) => {
  const handle = await makePostgresStorage({ url, ...(poolSize ? { poolSize } : {}) });
  try {
    return await work((sql) => handle.orm.em.getConnection().execute(sql) as Promise<Array<Row>>);
  } finally {
    await handle.close();
  }
};

export const targets: ReadonlyArray<Target> = [
  {
    name: "embedded PGlite (DATA_DIR)",
    open: async () => ({ env: {}, dispose: async () => {} }),
    sql: async (_env, dataDir, work) => {
      const embedded = await startEmbeddedPostgres(embeddedDataDir(dataDir));
      try {
        return await withStorage(embedded.url, work, 1);
      } finally {
        await embedded.stop();
      }
    },
  },
  ...(serverUrl === undefined
    ? []
    : [
        {
          name: "PostgreSQL server (DATABASE_URL)",
          open: async () => {
            const database = await createServerDatabase(serverUrl);
            return { env: { DATABASE_URL: database.url, ENCRYPTION_KEY: encryptionKey() }, dispose: database.dispose };
          },
          sql: (env, _dataDir, work) => withStorage(env.DATABASE_URL!, work),
        } satisfies Target,
      ]),
];

// biome-ignore lint/suspicious/noExplicitAny: records are plain JSON
export type Json = Record<string, any>;

/** A server's links as a request sets them: ids, in the order given. */
export interface Links {
  readonly providers: ReadonlyArray<{ readonly id: string; readonly tools: ReadonlyArray<{ readonly id: string }> }>;
  readonly prompts: ReadonlyArray<{ readonly id: string }>;
  readonly resources: ReadonlyArray<{ readonly id: string }>;
}

/** One server the loop wrote: what each version's request asked for, and what was acknowledged. */
export interface ServerLog {
  readonly name: string;
  /** `versions[v - 1]`: the description and links the request that makes version v asked for. */
  readonly versions: Array<{ readonly description: string; readonly links: Links }>;
  /** The highest version acknowledged (0: not even the create). */
  acked: number;
  id?: string;
  /** Token names asked for; the acknowledged ones with their ids. */
  readonly tokens: Array<{ readonly name: string; id?: string }>;
}

/** A provider a client created and adds tools to. */
export interface ProviderLog {
  readonly name: string;
  id?: string;
  readonly tools: Array<{ readonly name: string; id?: string }>;
}

export interface Fixture {
  readonly provider: Json;
  readonly tools: ReadonlyArray<Json>;
  readonly prompts: ReadonlyArray<Json>;
  readonly resources: ReadonlyArray<Json>;
}

/** A small deterministic PRNG (mulberry32), so that a failing run's choices can be replayed. */
export const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** Between `min` and `max` of `items`, in a random order. */
export const pick = <T>(random: () => number, items: ReadonlyArray<T>, min: number, max: number): Array<T> => {
  const shuffled = items.map((item) => ({ item, key: random() })).sort((a, b) => a.key - b.key);
  return shuffled.slice(0, min + Math.floor(random() * (max - min + 1))).map((x) => x.item);
};

export const ids = (records: ReadonlyArray<Json>) => records.map((r) => ({ id: String(r.id) }));

export const randomLinks = (random: () => number, fixture: ReadonlyArray<Fixture>): Links => {
  const chosen = pick(random, fixture, 2, fixture.length);
  return {
    providers: chosen.map((f) => ({ id: f.provider.id, tools: ids(pick(random, f.tools, 1, f.tools.length)) })),
    prompts: ids(
      pick(
        random,
        chosen.flatMap((f) => f.prompts),
        0,
        3,
      ),
    ),
    resources: ids(
      pick(
        random,
        chosen.flatMap((f) => f.resources),
        0,
        3,
      ),
    ),
  };
};

/** The links of a server as the API shows them, reduced to ids in order. */
export const linksOf = (server: Json): Links => ({
  providers: (server.providers as Array<Json>).map((p) => ({ id: p.id, tools: ids(p.tools) })),
  prompts: ids(server.prompts),
  resources: ids(server.resources),
});

export const linkCount = (links: Links) =>
  links.providers.length +
  links.providers.reduce((n, p) => n + p.tools.length, 0) +
  links.prompts.length +
  links.resources.length;

export const expectOk = (res: Res, status: number, what: string): Json => {
  expect(res.status, `${what}: ${res.status} ${res.text.slice(0, 400)}`).toBe(status);
  return res.body;
};

/** Everything the clients asked for, across cycles. */
export interface History {
  readonly servers: Array<ServerLog>;
  readonly providers: Array<ProviderLog>;
}

/**
 * Runs WORKERS clients writing in a loop against `service` and SIGKILLs it from inside the handler of the
 * KILL_AFTER-th acknowledged answer. Every answer before the kill must be a success.
 */
export const writeUntilKilled = async (
  service: ServiceProcess,
  api: Client,
  fixture: ReadonlyArray<Fixture>,
  history: History,
  cycle: number,
) => {
  let acknowledged = 0;
  let started = 0;
  let settled = 0;
  let killed = false;
  let inFlightAtKill = 0;
  /** Sends one write; answers its body when acknowledged, undefined when the process died under it. */
  const write = async (method: string, path: string, body: Json, status: number): Promise<Json | undefined> => {
    if (killed) return undefined;
    started++;
    let res: Res;
    try {
      res = await api.request(method, path, { body });
    } catch (error) {
      if (killed) return undefined;
      throw error;
    } finally {
      settled++;
    }
    // An answer read after the kill was sent before it: acknowledged all the same.
    const answer = expectOk(res, status, `${method} ${path}`);
    acknowledged++;
    if (acknowledged === KILL_AFTER) {
      killed = true;
      inFlightAtKill = started - settled;
      service.child.kill("SIGKILL");
    }
    return answer;
  };
  const client = async (worker: number) => {
    const random = prng(cycle * 100 + worker + 1);
    const own: ProviderLog = { name: `Own provider ${uniq()}`, tools: [] };
    history.providers.push(own);
    const created = await write(
      "POST",
      "/providers",
      { provider: { name: own.name, baseURL: "https://a.example" } },
      201,
    );
    if (created === undefined) return;
    own.id = created.provider.id;
    while (!killed) {
      const log: ServerLog = { name: `Server ${uniq()}`, versions: [], acked: 0, tokens: [] };
      const v1 = { description: `v1 of ${log.name}`, links: randomLinks(random, fixture) };
      log.versions.push(v1);
      history.servers.push(log);
      const server = await write(
        "POST",
        "/servers",
        { server: { name: log.name, instructions: v1.description, ...v1.links } },
        201,
      );
      if (server === undefined) return;
      log.id = server.server.id;
      log.acked = 1;
      const token: { name: string; id?: string } = { name: `token ${uniq()}` };
      log.tokens.push(token);
      const minted = await write("POST", `/servers/${log.id}/tokens`, { token: { name: token.name } }, 201);
      if (minted === undefined) return;
      token.id = minted.token.id;
      const v2 = { description: `v2 of ${log.name}`, links: randomLinks(random, fixture) };
      log.versions.push(v2);
      const patched = await write(
        "PATCH",
        `/servers/${log.id}`,
        { server: { version: 1, instructions: v2.description, ...v2.links } },
        200,
      );
      if (patched === undefined) return;
      log.acked = 2;
      const tool: { name: string; id?: string } = { name: toolWrite().name };
      own.tools.push(tool);
      const made = await write("POST", `/providers/${own.id}/tools`, { tool: toolWrite({ name: tool.name }) }, 201);
      if (made === undefined) return;
      tool.id = made.tool.id;
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => client(w)));
  expect(killed, "the loop ended without reaching the kill").toBe(true);
  expect(await service.exited).toEqual({ code: null, signal: "SIGKILL" });
  return { acknowledged, inFlightAtKill };
};

/**
 * Reads everything back through `api` and compares it with `history`. Answers what it checked, and how many
 * writes committed although their answer never arrived (the kill came between the commit and the answer).
 */
export const checkThroughApi = async (api: Client, fixture: ReadonlyArray<Fixture>, history: History) => {
  let links = 0;
  let unacknowledged = 0;
  // Servers: each one there is one a client asked for, exactly as the request of its version asked; each
  // acknowledged create and PATCH is there.
  const listed = expectOk(await api.get("/servers"), 200, "GET /servers").servers as Array<Json>;
  const byName = new Map(history.servers.map((s) => [s.name, s]));
  for (const server of listed) {
    const log = byName.get(server.name);
    expect(log, `a server nobody created: ${server.name}`).toBeDefined();
    const version = server.version as number;
    expect(version, `${server.name} at version ${version}, acknowledged ${log!.acked}`).toBeGreaterThanOrEqual(
      Math.max(1, log!.acked),
    );
    expect(version).toBeLessThanOrEqual(log!.versions.length);
    if (log!.id !== undefined) expect(server.id).toBe(log!.id);
    if (version > log!.acked) unacknowledged++;
    const one = expectOk(await api.get(`/servers/${server.id}`), 200, "GET /servers/{id}").server;
    expect(one).toEqual(server);
    const asked = log!.versions[version - 1]!;
    expect({ description: one.description, links: linksOf(one) }, `server ${server.name} v${version}`).toEqual(asked);
    links += linkCount(asked.links);
    // Tokens: each one there was asked for; each acknowledged one is there.
    const tokens = expectOk(await api.get(`/servers/${server.id}/tokens`), 200, "GET tokens").tokens as Array<Json>;
    for (const t of tokens) {
      const request = log!.tokens.find((x) => x.name === t.name);
      expect(request, `a token nobody created: ${t.name}`).toBeDefined();
      if (request!.id === undefined) unacknowledged++;
      else expect(t.id).toBe(request!.id);
    }
    for (const t of log!.tokens.filter((x) => x.id !== undefined))
      expect(
        tokens.map((x) => x.id),
        `acknowledged token ${t.name}`,
      ).toContain(t.id);
  }
  const ackedServers = history.servers.filter((s) => s.acked > 0);
  for (const log of ackedServers)
    expect(
      listed.map((s) => s.name),
      `acknowledged server ${log.name}`,
    ).toContain(log.name);

  // Providers: a tool create writes the tool and bumps its provider's version in one transaction, so a
  // client's provider has exactly version 1 + its number of tools.
  const allProviders: Array<Json> = [];
  for (let cursor = ""; ; ) {
    const query = `/providers?limit=1000${cursor === "" ? "" : `&token=${encodeURIComponent(cursor)}`}`;
    const page = expectOk(await api.get(query), 200, "GET /providers");
    allProviders.push(...page.providers);
    cursor = page.nextToken;
    if (cursor === "") break;
  }
  const own = new Map(history.providers.map((p) => [p.name, p]));
  const fixtureIds = new Set(fixture.map((f) => f.provider.id));
  for (const summary of allProviders)
    expect(fixtureIds.has(summary.id) || own.has(summary.name), `a provider nobody created: ${summary.name}`).toBe(
      true,
    );
  for (const log of history.providers.filter((p) => p.id !== undefined))
    expect(
      allProviders.map((p) => p.id),
      `acknowledged provider ${log.name}`,
    ).toContain(log.id);
  let tools = 0;
  for (const summary of allProviders.filter((p) => own.has(p.name))) {
    const log = own.get(summary.name)!;
    if (log.id === undefined) unacknowledged++;
    const provider = expectOk(await api.get(`/providers/${summary.id}`), 200, "GET /providers/{id}").provider;
    const names = (provider.tools as Array<Json>).map((t) => t.name as string);
    for (const name of names) {
      const asked = log.tools.find((t) => t.name === name);
      expect(asked, `a tool nobody created: ${name}`).toBeDefined();
      if (asked!.id === undefined) unacknowledged++;
    }
    for (const tool of log.tools.filter((t) => t.id !== undefined))
      expect(names, `acknowledged tool ${tool.name}`).toContain(tool.name);
    expect(provider.version, `provider ${log.name}: version against its tools`).toBe(1 + names.length);
    tools += names.length;
  }
  const tokens = history.servers.flatMap((s) => s.tokens).filter((t) => t.id !== undefined).length;
  return {
    servers: listed.length,
    ackedServers: ackedServers.length,
    links,
    tools,
    ackedTokens: tokens,
    unacknowledged,
  };
};

/** Reads the tables directly: no link without both its ends, and the totals the API showed. */
export const orphansAndTotals = async (query: Query) => {
  const orphans = await query(`
    select 'server_providers' as t, count(*)::int as n from server_providers l
      where not exists (select 1 from servers s where s.id = l.server_id)
         or not exists (select 1 from providers p where p.id = l.provider_id)
    union all select 'server_tools', count(*)::int from server_tools l
      where not exists (select 1 from server_providers sp where sp.server_id = l.server_id and sp.provider_id = l.provider_id)
         or not exists (select 1 from tools t where t.id = l.tool_id and t.provider_id = l.provider_id)
    union all select 'server_prompts', count(*)::int from server_prompts l
      where not exists (select 1 from servers s where s.id = l.server_id)
         or not exists (select 1 from prompts p where p.id = l.prompt_id)
    union all select 'server_resources', count(*)::int from server_resources l
      where not exists (select 1 from servers s where s.id = l.server_id)
         or not exists (select 1 from resources r where r.id = l.resource_id)
    union all select 'server_tokens', count(*)::int from server_tokens l
      where not exists (select 1 from servers s where s.id = l.server_id)
    union all select 'tools', count(*)::int from tools c
      where not exists (select 1 from providers p where p.id = c.provider_id)`);
  const [totals] = await query(`
    select (select count(*)::int from servers) as servers,
           (select count(*)::int from server_providers) + (select count(*)::int from server_tools)
           + (select count(*)::int from server_prompts) + (select count(*)::int from server_resources) as links,
           (select count(*)::int from server_tokens) as tokens,
           (select count(*)::int from tools) as tools`);
  return { orphans, totals: totals! };
};
