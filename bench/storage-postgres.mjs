// What the PostgreSQL adapter's reads and writes cost, and what MikroORM's own ways to do the same cost.
//
//   ./run build && TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/storage-postgres.mjs [rounds=300] [adapter]
//
// Creates a throwaway database on the server (dropped at the end), migrates it, stores 50 providers × 20
// tools (plus a resource and a prompt each) and a server choosing all of them, then times one operation at a
// time, the variants taking turns (in alternating order, so drift and garbage collection hit all alike).
// Prints the median and p95 in µs and the SQL statements each operation sends. `adapter` is a path to
// another build of the adapter's index.js (e.g. the previous commit's) to compare against; MikroORM's
// variants use the built package.
//
//   adapter     the storage port (hand-written SQL derived from the entity metadata; rows decoded by the
//               domain's row schemas)
//   em          MikroORM's EntityManager (fork per operation, entities hydrated, unit of work for writes)
//   kysely      MikroORM 7's Kysely integration (em.getKysely(): typed query builder, plain rows)
import { pathToFileURL } from "node:url";
import { prompt, provider, resource, server, tool } from "@mcpsm/storage-contract";
import * as current from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import { Effect } from "effect";

const ROUNDS = Number(process.argv[2] ?? 300);
const other = process.argv[3] === undefined ? undefined : await import(pathToFileURL(process.argv[3]).href);
const serverUrl = process.env.TEST_DATABASE_URL;
if (serverUrl === undefined) throw new Error("set TEST_DATABASE_URL (a PostgreSQL server to create a database on)");

const PROVIDERS = 50;
const TOOLS = 20;
const database = await createServerDatabase(serverUrl);
let statements = 0;
const open = (adapter) =>
  adapter.makePostgresStorage({ url: database.url, poolSize: 4, onStatement: () => void statements++ });
const handle = await open(current);
const otherHandle = other === undefined ? undefined : await open(other);
try {
  await handle.migrate();
  const providers = Array.from({ length: PROVIDERS }, (_, i) => provider(100 + i));
  const toolOf = (i, j) => tool(1000 + i * TOOLS + j, providers[i].id, { name: `tool${j}` });
  await Effect.runPromise(
    handle.storage.transaction((tx) =>
      Effect.gen(function* () {
        for (const [i, p] of providers.entries()) {
          yield* tx.insertProvider(p);
          for (let j = 0; j < TOOLS; j++) yield* tx.insertTool(toolOf(i, j));
          yield* tx.insertResource(resource(100 + i, p.id));
          yield* tx.insertPrompt(prompt(100 + i, p.id));
        }
        yield* tx.insertServer(
          server(1, {
            providers: providers.map((p, i) => ({
              providerId: p.id,
              toolIds: Array.from({ length: TOOLS }, (_, j) => toolOf(i, j).id),
            })),
            resourceIds: providers.map((p, i) => resource(100 + i, p.id).id),
            promptIds: providers.map((p, i) => prompt(100 + i, p.id).id),
          }),
        );
      }),
    ),
  );
  const serverId = server(1).id;
  const someTool = toolOf(7, 3);
  const someProvider = providers[7].id;
  const { ToolEntity, ServerProviderEntity, ServerToolEntity, ServerResourceEntity, ServerPromptEntity } =
    Object.fromEntries(current.ENTITIES.map((e) => [`${e.meta.className}Entity`, e]));

  const port = (h) => ({
    findServerGraph: () => Effect.runPromise(h.storage.read((tx) => tx.findServerGraph(serverId))),
    findTool: () => Effect.runPromise(h.storage.read((tx) => tx.findTool(someTool.id))),
    listTools: () => Effect.runPromise(h.storage.read((tx) => tx.listTools(someProvider))),
    "insert+delete tool": () =>
      Effect.runPromise(
        h.storage.transaction((tx) =>
          Effect.gen(function* () {
            const t = tool(999_999, someProvider, { name: "bench" });
            yield* tx.insertTool(t);
            yield* tx.deleteTool(t.id);
          }),
        ),
      ),
    updateTool: () =>
      Effect.runPromise(
        h.storage.transaction((tx) => tx.updateTool({ ...someTool, description: `d${Math.random()}` })),
      ),
  });
  const orm = handle.orm;
  const em = {
    findServerGraph: async () => {
      const fork = orm.em.fork();
      return Promise.all([
        fork.find(ServerProviderEntity, { server: serverId }, { populate: ["provider"], orderBy: { ordinal: "asc" } }),
        fork.find(
          ServerToolEntity,
          { link: { server: serverId } },
          { populate: ["tool"], orderBy: { ordinal: "asc" } },
        ),
        fork.find(ServerResourceEntity, { server: serverId }, { populate: ["resource"], orderBy: { ordinal: "asc" } }),
        fork.find(ServerPromptEntity, { server: serverId }, { populate: ["prompt"], orderBy: { ordinal: "asc" } }),
      ]);
    },
    findTool: () => orm.em.fork().findOne(ToolEntity, someTool.id),
    listTools: () =>
      orm.em.fork().find(ToolEntity, { provider: someProvider }, { orderBy: { createdAt: "asc", id: "asc" } }),
    "insert+delete tool": () =>
      orm.em.fork().transactional(async (fork) => {
        const t = tool(999_998, someProvider, { name: "bench-em" });
        const { providerId, ...rest } = t;
        const entity = fork.create(ToolEntity, { ...rest, provider: providerId });
        await fork.flush();
        fork.remove(entity);
        await fork.flush();
      }),
    updateTool: () =>
      orm.em.fork().transactional(async (fork) => {
        const entity = await fork.findOneOrFail(ToolEntity, someTool.id);
        entity.description = `d${Math.random()}`;
      }),
  };
  const kysely = {
    findTool: () =>
      orm.em.fork().getKysely().selectFrom("tools").selectAll().where("id", "=", someTool.id).executeTakeFirst(),
    listTools: () =>
      orm.em
        .fork()
        .getKysely()
        .selectFrom("tools")
        .selectAll()
        .where("provider_id", "=", someProvider)
        .orderBy("created_at")
        .orderBy("id")
        .execute(),
  };

  const variants = {
    adapter: port(handle),
    ...(otherHandle ? { "other adapter": port(otherHandle) } : {}),
    em,
    kysely,
  };
  const operations = Object.keys(variants.adapter);
  const times = {};
  const sent = {};
  const order = Object.entries(variants);
  for (let round = -20; round < ROUNDS; round++)
    // Each round in the other order, so that no variant always runs just after another's garbage.
    for (const operation of operations)
      for (const [name, variant] of round % 2 === 0 ? order : order.toReversed()) {
        const run = variant[operation];
        if (run === undefined) continue;
        statements = 0;
        const start = process.hrtime.bigint();
        await run();
        const us = Number(process.hrtime.bigint() - start) / 1000;
        if (round < 0) continue; // warm-up
        const key = `${operation} ${name}`;
        times[key] ??= [];
        times[key].push(us);
        sent[key] = statements;
      }
  const pct = (xs, p) => xs.toSorted((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
  console.log(`${ROUNDS} rounds; server graph = ${PROVIDERS} providers × ${TOOLS} tools; µs per operation`);
  console.log("operation                          median      p95   statements");
  for (const [key, xs] of Object.entries(times))
    console.log(
      `${key.padEnd(32)} ${pct(xs, 0.5).toFixed(0).padStart(8)} ${pct(xs, 0.95).toFixed(0).padStart(8)} ${String(sent[key]).padStart(12)}`,
    );
} finally {
  await handle.close();
  await otherHandle?.close();
  await database.dispose();
}
