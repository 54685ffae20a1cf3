import { type ServerReference, type ServerRow, storedServerRow, storedToolSettings } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { insertRow, insertRowWhere, updateRowIfVersion } from "../table/table.js";
import { insertBreach } from "./breaches.js";
import type { Operations } from "./operations.js";
import type { Runner } from "./runner.js";

// A server row and its links: the providers it chose (server_providers), the tools chosen under each
// (server_tools), its resources and prompts (server_resources, server_prompts), each with the ordinal the
// client gave. The link tables have a fixed shape of ids and an ordinal, written in one statement by unnest.

/**
 * The common table expressions inserting the provider, tool, resource and prompt links of a server (its id
 * is parameter `$first`), and their parameters; undefined when the server links nothing. `onlyIf`: a
 * condition every link insert is made under (the server row was inserted).
 */
const linkInserts = (server: ServerRow, first: number, onlyIf = "true") => {
  const toolProviders: Array<string> = [];
  const toolIds: Array<string> = [];
  const toolOrdinals: Array<number> = [];
  // Each chosen tool's settings (docs/api-rules.md §20), the defaults where it has none.
  const settings = new Map(storedToolSettings(server).map((entry) => [entry.toolId, entry]));
  const aliases: Array<string> = [];
  const descriptions: Array<string> = [];
  const fixedArgs: Array<string> = [];
  const approvals: Array<string> = [];
  for (const link of server.providers)
    for (const [ordinal, toolId] of link.toolIds.entries()) {
      toolProviders.push(link.providerId);
      toolIds.push(toolId);
      toolOrdinals.push(ordinal);
      const entry = settings.get(toolId);
      aliases.push(entry?.alias ?? "");
      descriptions.push(entry?.description ?? "");
      fixedArgs.push(JSON.stringify(entry?.fixedArgs ?? {}));
      approvals.push(entry?.approval ?? "INHERIT");
    }
  if (server.providers.length === 0 && server.resourceIds.length === 0 && server.promptIds.length === 0)
    return undefined;
  const $ = (n: number) => `$${first + n - 1}`;
  return {
    ctes: `linked_providers as (
         insert into server_providers (server_id, provider_id, ordinal)
         select ${$(1)}, x.id, x.ordinal - 1 from unnest(${$(2)}::text[]) with ordinality as x(id, ordinal)
         where ${onlyIf}),
       linked_tools as (
         insert into server_tools (server_id, provider_id, tool_id, ordinal, alias, description, fixed_args, approval)
         select ${$(1)}, x.provider_id, x.tool_id, x.ordinal, x.alias, x.description, x.fixed_args::jsonb, x.approval
         from unnest(${$(3)}::text[], ${$(4)}::text[], ${$(5)}::int[], ${$(8)}::text[], ${$(9)}::text[], ${$(10)}::text[],
                     ${$(11)}::text[]) as x(provider_id, tool_id, ordinal, alias, description, fixed_args, approval)
         where ${onlyIf}),
       linked_resources as (
         insert into server_resources (server_id, resource_id, ordinal)
         select ${$(1)}, x.id, x.ordinal - 1 from unnest(${$(6)}::text[]) with ordinality as x(id, ordinal)
         where ${onlyIf}),
       linked_prompts as (
         insert into server_prompts (server_id, prompt_id, ordinal)
         select ${$(1)}, x.id, x.ordinal - 1 from unnest(${$(7)}::text[]) with ordinality as x(id, ordinal)
         where ${onlyIf})`,
    params: [
      server.id,
      server.providers.map((link) => link.providerId),
      toolProviders,
      toolIds,
      toolOrdinals,
      server.resourceIds,
      server.promptIds,
      aliases,
      descriptions,
      fixedArgs,
      approvals,
    ],
  };
};

/** Inserts the links of a server, in one statement. */
const insertLinks = (runner: Runner, server: ServerRow) => {
  const links = linkInserts(server, 1);
  return links === undefined ? Effect.void : Effect.asVoid(runner.rows(`with ${links.ctes} select 1`, links.params));
};

/** For each kind of record a server can use: the condition that server `s` uses the record `$1`. */
const USES: Readonly<Record<ServerReference["kind"], string>> = {
  provider: `exists (select 1 from server_providers x where x.server_id = s.id and x.provider_id = $1)
    or exists (select 1 from server_resources x join resources r on r.id = x.resource_id
               where x.server_id = s.id and r.provider_id = $1)
    or exists (select 1 from server_prompts x join prompts q on q.id = x.prompt_id
               where x.server_id = s.id and q.provider_id = $1)`,
  tool: "exists (select 1 from server_tools x where x.server_id = s.id and x.tool_id = $1)",
  resource: "exists (select 1 from server_resources x where x.server_id = s.id and x.resource_id = $1)",
  prompt: "exists (select 1 from server_prompts x where x.server_id = s.id and x.prompt_id = $1)",
  gitConnection: "s.git_connection_id = $1",
};

export const serverOperations: Operations<
  | "insertServer"
  | "updateServer"
  | "deleteServer"
  | "findServer"
  | "findServerGraph"
  | "listServerGraphs"
  | "lock"
  | "countServers"
  | "serversReferencing"
> = (tables) => {
  const { servers } = tables;
  const { server, serverGraph } = tables.graphs;
  const insert = insertRow(servers);
  // Within a quota: the tenant's count (kept by the triggers; 0 before its first server) below the limit.
  const insertWithin = insertRowWhere(
    servers,
    (param) =>
      `coalesce((select n from server_counts where tenant = ${param("tenant")}), 0) < $${servers.columns.length + 1}`,
  );
  // The compare-and-set is the UPDATE itself; the tenant and creation time stay as stored.
  const update = updateRowIfVersion(servers, ["tenant", "createdAt"]);
  const find = `select ${server.json("s")} as r from servers s where s.id = $1`;
  const findGraph = `select ${serverGraph.json("s")} as r from servers s where s.id = $1`;
  const listGraphs = `select ${serverGraph.json("s")} as r from servers s where s.tenant = $1 order by s.created_at, s.id`;

  return (ctx) => {
    const { runner } = ctx;
    return {
      // The row and its links in one statement (the links' foreign keys are checked at its end). Within a
      // quota: the row only while the tenant's count is below it, the links only with the row.
      insertServer: (given, maxServers) => {
        const row = storedServerRow(given);
        const breach = insertBreach("server", row.name);
        if (maxServers === undefined) {
          const params = insert.params(row);
          const links = linkInserts(row, params.length + 1);
          return runner.guarded(
            (links === undefined
              ? runner.rows(insert.sql, params)
              : runner.rows(`with inserted as (${insert.sql}), ${links.ctes} select 1`, [...params, ...links.params])
            ).pipe(Effect.as(true), Effect.catchTag("ConstraintBreach", breach)),
          );
        }
        const params = [...insertWithin.params(row), maxServers];
        const links = linkInserts(row, params.length + 1, "exists (select 1 from inserted)");
        const insertion = `with inserted as (${insertWithin.sql} returning 1)${links === undefined ? "" : `, ${links.ctes}`}`;
        const allParams = [...params, ...(links?.params ?? [])];
        // Expected to succeed, so that the audit event and COMMIT go in its round trip and the quota lock is
        // held for no turn-around of the service: a full quota fails it (refuse_expected_write), and that or
        // a breach runs the transaction again, where the insert below answers false or the breach.
        const expected = `${insertion} select refuse_expected_write('the server quota is reached')
           where not exists (select 1 from inserted)`;
        // Prepared by SQL: planning this insert cost PostgreSQL as much as running it (docs/performance.md).
        return Effect.flatMap(runner.expect(expected, allParams, true), (queued) =>
          queued
            ? Effect.succeed(true)
            : runner.guarded(
                runner.rows(`${insertion} select count(*)::int as n from inserted`, allParams).pipe(
                  Effect.map((result) => Number(result[0]?.n ?? 0) > 0),
                  Effect.catchTag("ConstraintBreach", breach),
                ),
              ),
        );
      },
      // Only when the compare-and-set matched are the links replaced.
      updateServer: (given, expectedVersion) => {
        const row = storedServerRow(given);
        return runner.guarded(
          Effect.gen(function* () {
            const updated = yield* runner.rows(update.sql, update.params(row, expectedVersion));
            if (updated.length === 0) return false;
            // Deleting the provider links takes the tool choices with them (ON DELETE CASCADE).
            yield* runner.rows(
              `with unlinked_providers as (delete from server_providers where server_id = $1),
                    unlinked_resources as (delete from server_resources where server_id = $1),
                    unlinked_prompts as (delete from server_prompts where server_id = $1)
               select 1`,
              [row.id],
            );
            yield* insertLinks(runner, row);
            return true;
          }).pipe(Effect.catchTag("ConstraintBreach", insertBreach("server", row.name))),
        );
      },
      deleteServer: (id) => Effect.asVoid(ctx.rows("delete from servers where id = $1", [id])),
      findServer: (id) => ctx.one(find, [id], server.decode),
      findServerGraph: (id) => ctx.one(findGraph, [id], serverGraph.decode),
      listServerGraphs: (tenant) => ctx.many(listGraphs, [tenant], serverGraph.decode),
      // A transaction-scoped advisory lock on a 64-bit hash of the key: released at COMMIT or ROLLBACK.
      // Sent with the statement that follows it (the lock is there before that statement's snapshot).
      lock: (key) => runner.deferred("select pg_advisory_xact_lock(hashtextextended($1, 0))", [key]),
      // Kept by the triggers of servers (schema/entities.ts): one row, however many servers the tenant has.
      countServers: (tenant) => ctx.count("select n from server_counts where tenant = $1", [tenant]),
      serversReferencing: (reference) =>
        Effect.map(
          ctx.rows(`select s.id, s.tenant from servers s where ${USES[reference.kind]} order by s.created_at, s.id`, [
            reference.id,
          ]),
          (result) => result.map((row) => ({ id: String(row.id), tenant: String(row.tenant) })),
        ),
    };
  };
};
