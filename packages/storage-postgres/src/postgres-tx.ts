import {
  type ProviderSearch,
  type RecordKind,
  ReferenceViolation,
  type ServerReference,
  type ServerRow,
  type SecretKind,
  type StorageTx,
  UniqueViolation,
} from "@mcpsm/domain";
import { Effect } from "effect";
import type { ConstraintBreach } from "./sql/db-errors.js";
import {
  decodePrompt,
  decodeProvider,
  decodeProviderWithTools,
  decodeResource,
  decodeServer,
  decodeServerGraph,
  decodeServerToken,
  decodeTool,
  decodeVariable,
  promptJson,
  providerJson,
  providerWithToolsJson,
  resourceJson,
  serverGraphJson,
  serverJson,
  serverTokenJson,
  toolJson,
  variableJson,
} from "./sql/records.js";

/** Runs statements for the operations of one transaction (or of one `read`). */
export interface Runner {
  /** Runs one statement with `$n` parameters; a constraint breach fails, any other error is a defect. */
  readonly rows: (
    sql: string,
    params?: ReadonlyArray<unknown>,
  ) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, ConstraintBreach>;
  /**
   * Runs a write that may breach a constraint so that the breach leaves the transaction usable (a
   * savepoint around it inside a transaction), as the in-memory adapter's failed write leaves its draft.
   */
  readonly guarded: <A, E>(write: Effect.Effect<A, E>) => Effect.Effect<A, E>;
}

/** The unique constraints the domain names, by the kind of record whose name they keep unique. */
const UNIQUE_NAMES: Readonly<Record<string, RecordKind>> = {
  providers_tenant_name_unique: "provider",
  tools_provider_id_name_unique: "tool",
  prompts_provider_id_name_unique: "prompt",
  resources_provider_id_name_unique: "resource",
  variables_tenant_name_unique: "variable",
  servers_tenant_name_unique: "server",
};

/** What a foreign key points at, for messages about a missing target. */
const REFERENCED: Readonly<Record<string, string>> = {
  tools_provider_id_foreign: "provider",
  prompts_provider_id_foreign: "provider",
  resources_provider_id_foreign: "provider",
  server_providers_provider_id_foreign: "provider",
  server_providers_server_id_foreign: "server",
  server_tools_tool_id_foreign: "tool",
  server_tools_link_foreign: "provider link",
  server_tools_tool_of_provider: "tool of provider",
  server_resources_resource_id_foreign: "resource",
  server_resources_server_id_foreign: "server",
  server_prompts_prompt_id_foreign: "prompt",
  server_prompts_server_id_foreign: "server",
  server_tokens_server_id_foreign: "server",
};

/** The key values in a PostgreSQL key detail such as `Key (provider_id)=(abc) is not present in table …`. */
const keyOf = (detail: string): string | undefined => /\)=\((.*)\) is not present/.exec(detail)?.[1];

/** A constraint breach no operation expects (a duplicate id, a bug) stays a defect. */
const unexpected = (breach: ConstraintBreach) => Effect.die(breach);

/** Maps a unique breach of a write of a `kind` record named `name` to UniqueViolation. */
const uniqueBreach =
  (name: string) =>
  (breach: ConstraintBreach): Effect.Effect<never, UniqueViolation> => {
    const clashing = breach.code === "23505" ? UNIQUE_NAMES[breach.constraint] : undefined;
    return clashing === undefined ? unexpected(breach) : Effect.fail(new UniqueViolation({ kind: clashing, name }));
  };

/** Maps the breaches of an insert of a `kind` record named `name`: a taken name, or a missing reference. */
const insertBreach =
  (kind: RecordKind, name: string) =>
  (breach: ConstraintBreach): Effect.Effect<never, UniqueViolation | ReferenceViolation> => {
    if (breach.code === "23505") return uniqueBreach(name)(breach);
    const target = REFERENCED[breach.constraint] ?? "record";
    const key = keyOf(breach.detail);
    const detail =
      target === "provider link"
        ? `a tool is chosen for provider ${key === undefined ? "" : `(${key}) `}without the server linking that provider`
        : target === "tool of provider"
          ? `a tool is chosen under a provider it does not belong to${key === undefined ? "" : ` (tool, provider: ${key})`}`
          : `${target} ${key === undefined ? "" : `'${key}' `}does not exist`;
    return Effect.fail(new ReferenceViolation({ kind, detail }));
  };

/** Maps the breaches of a delete of the `kind` record `id` (held by a server link) to ReferenceViolation. */
const deleteBreach =
  (kind: RecordKind, id: string) =>
  (breach: ConstraintBreach): Effect.Effect<never, ReferenceViolation> =>
    breach.code === "23503"
      ? Effect.fail(
          new ReferenceViolation({
            kind,
            detail:
              kind === "provider"
                ? `provider '${id}' (or one of its tools, prompts or resources) is used by a server`
                : `${kind} '${id}' is used by a server`,
          }),
        )
      : unexpected(breach);

const noBreach = <A>(effect: Effect.Effect<A, ConstraintBreach>): Effect.Effect<A> =>
  Effect.catchTag(effect, "ConstraintBreach", unexpected);

/** `text` for LIKE that matches `part` literally: the wildcards %, _ and the escape \ are escaped. */
export const likeContains = (part: string) => `%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A jsonb parameter: the JSON text, or SQL NULL for null. */
const jsonb = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

const iso = (date: Date) => date.toISOString();

/** The StorageTx whose operations run their statements with `runner`. */
export const makeStorageTx = (runner: Runner): StorageTx => {
  const { guarded } = runner;
  const rows = (sql: string, params: ReadonlyArray<unknown> = []) => noBreach(runner.rows(sql, params));

  /** The decoded `r` column of the first row, if any. */
  const one = <T>(sql: string, params: ReadonlyArray<unknown>, decode: (json: unknown) => T) =>
    Effect.map(rows(sql, params), (result) => (result[0] === undefined ? undefined : decode(result[0].r)));
  /** The decoded `r` column of every row. */
  const many = <T>(sql: string, params: ReadonlyArray<unknown>, decode: (json: unknown) => T) =>
    Effect.map(rows(sql, params), (result) => result.map((row) => decode(row.r)));
  const count = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(rows(sql, params), (result) => Number(result[0]?.n ?? 0));

  /** Deletes a row that servers may still reference; a reference held by the database fails it. */
  const deleteHeld = (table: "providers" | "tools" | "prompts" | "resources", kind: RecordKind, id: string) =>
    guarded(
      runner
        .rows(`delete from ${table} where id = $1`, [id])
        .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", deleteBreach(kind, id))),
    );

  /** Inserts the provider, tool, resource and prompt links of a server, in one statement. */
  const insertLinks = (server: ServerRow) => {
    const toolProviders: Array<string> = [];
    const toolIds: Array<string> = [];
    const toolOrdinals: Array<number> = [];
    for (const link of server.providers)
      for (const [ordinal, toolId] of link.toolIds.entries()) {
        toolProviders.push(link.providerId);
        toolIds.push(toolId);
        toolOrdinals.push(ordinal);
      }
    if (server.providers.length === 0 && server.resourceIds.length === 0 && server.promptIds.length === 0)
      return Effect.void;
    return Effect.asVoid(
      runner.rows(
        `with linked_providers as (
           insert into server_providers (server_id, provider_id, ordinal)
           select $1, x.id, x.ordinal - 1 from unnest($2::text[]) with ordinality as x(id, ordinal)),
         linked_tools as (
           insert into server_tools (server_id, provider_id, tool_id, ordinal)
           select $1, x.provider_id, x.tool_id, x.ordinal from unnest($3::text[], $4::text[], $5::int[]) as x(provider_id, tool_id, ordinal)),
         linked_resources as (
           insert into server_resources (server_id, resource_id, ordinal)
           select $1, x.id, x.ordinal - 1 from unnest($6::text[]) with ordinality as x(id, ordinal)),
         linked_prompts as (
           insert into server_prompts (server_id, prompt_id, ordinal)
           select $1, x.id, x.ordinal - 1 from unnest($7::text[]) with ordinality as x(id, ordinal))
         select 1`,
        [
          server.id,
          server.providers.map((link) => link.providerId),
          toolProviders,
          toolIds,
          toolOrdinals,
          server.resourceIds,
          server.promptIds,
        ],
      ),
    );
  };

  const searchProviders = (search: ProviderSearch) => {
    const params: Array<unknown> = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const filters = [`(p.tenant = ${param(search.viewerTenant)} or p.visibility_type = 'PUBLIC')`];
    if (search.nameContains !== undefined)
      filters.push(`p.name ilike ${param(likeContains(search.nameContains))} escape '\\'`);
    if (search.baseURLContains !== undefined)
      filters.push(`p.base_url ilike ${param(likeContains(search.baseURLContains))} escape '\\'`);
    if (search.apiType !== undefined) filters.push(`p.api_type = ${param(search.apiType)}`);
    if (search.visibility !== undefined) filters.push(`p.visibility_type = ${param(search.visibility)}`);
    const where = filters.join(" and ");
    const after =
      search.after === undefined
        ? ""
        : `and (p.created_at, p.id) > (${param(iso(search.after.createdAt))}::timestamptz, ${param(search.after.id)})`;
    const limit = param(Math.max(0, Math.floor(search.limit)));
    // One statement: the page (keyset on (created_at, id), with each provider's tools) and the match count.
    return Effect.map(
      rows(
        `select (select count(*) from providers p where ${where})::int as n,
           coalesce((select json_agg(${providerWithToolsJson("pg")} order by pg.created_at, pg.id)
             from (select p.* from providers p where ${where} ${after}
                   order by p.created_at, p.id limit ${limit}) pg), '[]'::json) as r`,
        params,
      ),
      (result) => {
        const row = result[0] ?? { n: 0, r: [] };
        return { items: (row.r as Array<unknown>).map(decodeProviderWithTools), matchCount: Number(row.n) };
      },
    );
  };

  const serversReferencing = (reference: ServerReference) => {
    const uses = {
      provider: `exists (select 1 from server_providers x where x.server_id = s.id and x.provider_id = $1)
        or exists (select 1 from server_resources x join resources r on r.id = x.resource_id
                   where x.server_id = s.id and r.provider_id = $1)
        or exists (select 1 from server_prompts x join prompts q on q.id = x.prompt_id
                   where x.server_id = s.id and q.provider_id = $1)`,
      tool: "exists (select 1 from server_tools x where x.server_id = s.id and x.tool_id = $1)",
      resource: "exists (select 1 from server_resources x where x.server_id = s.id and x.resource_id = $1)",
      prompt: "exists (select 1 from server_prompts x where x.server_id = s.id and x.prompt_id = $1)",
    }[reference.kind];
    return Effect.map(
      rows(`select s.id, s.tenant from servers s where ${uses} order by s.created_at, s.id`, [reference.id]),
      (result) => result.map((row) => ({ id: String(row.id), tenant: String(row.tenant) })),
    );
  };

  return {
    insertProvider: (row) =>
      guarded(
        runner
          .rows(
            `insert into providers (id, tenant, created_at, updated_at, version, api_type, visibility_type, base_url,
               document_url, icon_url, secret_prefix, name, description, oauth2_config)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb)`,
            [
              row.id,
              row.tenant,
              iso(row.createdAt),
              iso(row.updatedAt),
              row.version,
              row.apiType,
              row.visibilityType,
              row.baseURL,
              row.documentURL,
              row.iconURL,
              row.secretPrefix,
              row.name,
              row.description,
              jsonb(row.oauth2Config),
            ],
          )
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", uniqueBreach(row.name))),
      ),
    // One compare-and-set statement; the tenant, creation time and secret prefix stay as stored.
    updateProvider: (row, expectedVersion) =>
      guarded(
        runner
          .rows(
            `update providers set updated_at = $2, version = $3, api_type = $4, visibility_type = $5, base_url = $6,
               document_url = $7, icon_url = $8, name = $9, description = $10, oauth2_config = $11::jsonb
             where id = $1 and version = $12 returning id`,
            [
              row.id,
              iso(row.updatedAt),
              row.version,
              row.apiType,
              row.visibilityType,
              row.baseURL,
              row.documentURL,
              row.iconURL,
              row.name,
              row.description,
              jsonb(row.oauth2Config),
              expectedVersion,
            ],
          )
          .pipe(
            Effect.map((result) => result.length > 0),
            Effect.catchTag("ConstraintBreach", uniqueBreach(row.name)),
          ),
      ),
    deleteProvider: (id) => deleteHeld("providers", "provider", id),
    findProvider: (id) =>
      one(`select ${providerJson("p")} as r from providers p where p.id = $1`, [id], decodeProvider),
    findProviderWithTools: (id) =>
      one(`select ${providerWithToolsJson("p")} as r from providers p where p.id = $1`, [id], decodeProviderWithTools),
    searchProviders,
    countProviders: (tenant) => count("select count(*)::int as n from providers where tenant = $1", [tenant]),

    insertTool: (row) =>
      guarded(
        runner
          .rows(
            `insert into tools (id, provider_id, created_at, updated_at, method, path, name, title, description,
               path_args_json_schema, query_args_json_schema, req_body_json_schema, headers, oauth2_scopes)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12::jsonb, $13::jsonb, $14::jsonb)`,
            [
              row.id,
              row.providerId,
              iso(row.createdAt),
              iso(row.updatedAt),
              row.method,
              row.path,
              row.name,
              row.title,
              row.description,
              jsonb(row.pathArgsJSONSchema),
              jsonb(row.queryArgsJSONSchema),
              jsonb(row.reqBodyJSONSchema),
              jsonb(row.headers),
              jsonb(row.oauth2Scopes),
            ],
          )
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", insertBreach("tool", row.name))),
      ),
    // A tool never moves to another provider: provider and creation time stay as stored.
    updateTool: (row) =>
      guarded(
        runner
          .rows(
            `update tools set updated_at = $2, method = $3, path = $4, name = $5, title = $6, description = $7,
               path_args_json_schema = $8::jsonb, query_args_json_schema = $9::jsonb, req_body_json_schema = $10::jsonb,
               headers = $11::jsonb, oauth2_scopes = $12::jsonb
             where id = $1`,
            [
              row.id,
              iso(row.updatedAt),
              row.method,
              row.path,
              row.name,
              row.title,
              row.description,
              jsonb(row.pathArgsJSONSchema),
              jsonb(row.queryArgsJSONSchema),
              jsonb(row.reqBodyJSONSchema),
              jsonb(row.headers),
              jsonb(row.oauth2Scopes),
            ],
          )
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", uniqueBreach(row.name))),
      ),
    deleteTool: (id) => deleteHeld("tools", "tool", id),
    findTool: (id) => one(`select ${toolJson("t")} as r from tools t where t.id = $1`, [id], decodeTool),
    listTools: (providerId) =>
      many(
        `select ${toolJson("t")} as r from tools t where t.provider_id = $1 order by t.created_at, t.id`,
        [providerId],
        decodeTool,
      ),

    insertPrompt: (row) =>
      guarded(
        runner
          .rows(
            `insert into prompts (id, provider_id, created_at, updated_at, name, description, arguments, messages)
             values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb)`,
            [
              row.id,
              row.providerId,
              iso(row.createdAt),
              iso(row.updatedAt),
              row.name,
              row.description,
              jsonb(row.arguments),
              jsonb(row.messages),
            ],
          )
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", insertBreach("prompt", row.name))),
      ),
    updatePrompt: (row) =>
      guarded(
        runner
          .rows(
            `update prompts set updated_at = $2, name = $3, description = $4, arguments = $5::jsonb, messages = $6::jsonb
             where id = $1`,
            [row.id, iso(row.updatedAt), row.name, row.description, jsonb(row.arguments), jsonb(row.messages)],
          )
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", uniqueBreach(row.name))),
      ),
    deletePrompt: (id) => deleteHeld("prompts", "prompt", id),
    findPrompt: (id) => one(`select ${promptJson("q")} as r from prompts q where q.id = $1`, [id], decodePrompt),
    listPrompts: (providerId) =>
      many(
        `select ${promptJson("q")} as r from prompts q where q.provider_id = $1 order by q.created_at, q.id`,
        [providerId],
        decodePrompt,
      ),

    insertResource: (row) =>
      guarded(
        runner
          .rows(
            `insert into resources (id, provider_id, created_at, updated_at, name, description, uri, mime_type, size,
               annotations)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb)`,
            [
              row.id,
              row.providerId,
              iso(row.createdAt),
              iso(row.updatedAt),
              row.name,
              row.description,
              row.uri,
              row.mimeType,
              row.size,
              jsonb(row.annotations),
            ],
          )
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", insertBreach("resource", row.name))),
      ),
    updateResource: (row) =>
      guarded(
        runner
          .rows(
            `update resources set updated_at = $2, name = $3, description = $4, uri = $5, mime_type = $6, size = $7,
               annotations = $8::jsonb
             where id = $1`,
            [
              row.id,
              iso(row.updatedAt),
              row.name,
              row.description,
              row.uri,
              row.mimeType,
              row.size,
              jsonb(row.annotations),
            ],
          )
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", uniqueBreach(row.name))),
      ),
    deleteResource: (id) => deleteHeld("resources", "resource", id),
    findResource: (id) =>
      one(`select ${resourceJson("r0")} as r from resources r0 where r0.id = $1`, [id], decodeResource),
    listResources: (providerId) =>
      many(
        `select ${resourceJson("r0")} as r from resources r0 where r0.provider_id = $1 order by r0.created_at, r0.id`,
        [providerId],
        decodeResource,
      ),

    insertVariable: (row) =>
      guarded(
        runner
          .rows(
            `insert into variables (id, tenant, created_at, updated_at, type, name, value)
             values ($1, $2, $3, $4, $5, $6, $7)`,
            [row.id, row.tenant, iso(row.createdAt), iso(row.updatedAt), row.type, row.name, row.value],
          )
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", uniqueBreach(row.name))),
      ),
    // updateVariable cannot report a clash, so tenant, name and creation time stay as stored.
    updateVariable: (row) =>
      Effect.asVoid(
        rows("update variables set updated_at = $2, type = $3, value = $4 where id = $1", [
          row.id,
          iso(row.updatedAt),
          row.type,
          row.value,
        ]),
      ),
    deleteVariable: (id) => Effect.asVoid(rows("delete from variables where id = $1", [id])),
    findVariable: (id) =>
      one(`select ${variableJson("v")} as r from variables v where v.id = $1`, [id], decodeVariable),
    findVariablesByName: (tenant, names) =>
      many(
        `select ${variableJson("v")} as r from variables v where v.tenant = $1 and v.name = any($2::text[])`,
        [tenant, [...names]],
        decodeVariable,
      ),
    listVariables: (tenant) =>
      many(
        `select ${variableJson("v")} as r from variables v where v.tenant = $1 order by v.created_at, v.id`,
        [tenant],
        decodeVariable,
      ),
    countVariables: (tenant) => count("select count(*)::int as n from variables where tenant = $1", [tenant]),

    insertServer: (row) =>
      guarded(
        Effect.zipRight(
          runner.rows(
            `insert into servers (id, tenant, created_at, updated_at, version, name, description,
               request_headers_proxy_enabled, dynamic_tool_discovery_enabled)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            [
              row.id,
              row.tenant,
              iso(row.createdAt),
              iso(row.updatedAt),
              row.version,
              row.name,
              row.description,
              row.requestHeadersProxyEnabled,
              row.dynamicToolDiscoveryEnabled,
            ],
          ),
          insertLinks(row),
        ).pipe(Effect.catchTag("ConstraintBreach", insertBreach("server", row.name))),
      ),
    // The compare-and-set is the UPDATE itself; only when it matched are the links replaced.
    updateServer: (row, expectedVersion) =>
      guarded(
        Effect.gen(function* () {
          const updated = yield* runner.rows(
            `update servers set updated_at = $2, version = $3, name = $4, description = $5,
               request_headers_proxy_enabled = $6, dynamic_tool_discovery_enabled = $7
             where id = $1 and version = $8 returning id`,
            [
              row.id,
              iso(row.updatedAt),
              row.version,
              row.name,
              row.description,
              row.requestHeadersProxyEnabled,
              row.dynamicToolDiscoveryEnabled,
              expectedVersion,
            ],
          );
          if (updated.length === 0) return false;
          // Deleting the provider links takes the tool choices with them (ON DELETE CASCADE).
          yield* runner.rows(
            `with unlinked_providers as (delete from server_providers where server_id = $1),
                  unlinked_resources as (delete from server_resources where server_id = $1),
                  unlinked_prompts as (delete from server_prompts where server_id = $1)
             select 1`,
            [row.id],
          );
          yield* insertLinks(row);
          return true;
        }).pipe(Effect.catchTag("ConstraintBreach", insertBreach("server", row.name))),
      ),
    deleteServer: (id) => Effect.asVoid(rows("delete from servers where id = $1", [id])),
    findServer: (id) => one(`select ${serverJson("s")} as r from servers s where s.id = $1`, [id], decodeServer),
    findServerGraph: (id) =>
      one(`select ${serverGraphJson("s")} as r from servers s where s.id = $1`, [id], decodeServerGraph),
    listServerGraphs: (tenant) =>
      many(
        `select ${serverGraphJson("s")} as r from servers s where s.tenant = $1 order by s.created_at, s.id`,
        [tenant],
        decodeServerGraph,
      ),
    // A transaction-scoped advisory lock on a 64-bit hash of the key: released at COMMIT or ROLLBACK.
    lock: (key) => Effect.asVoid(Effect.orDie(rows("select pg_advisory_xact_lock(hashtextextended($1, 0))", [key]))),
    countServers: (tenant) => count("select count(*)::int as n from servers where tenant = $1", [tenant]),
    serversReferencing,

    insertServerToken: (row) =>
      guarded(
        runner
          .rows(
            `insert into server_tokens (id, server_id, tenant, created_at, expires_at, name, value_hash)
             values ($1, $2, $3, $4, $5, $6, $7)`,
            [
              row.id,
              row.serverId,
              row.tenant,
              iso(row.createdAt),
              row.expiresAt === null ? null : iso(row.expiresAt),
              row.name,
              row.valueHash,
            ],
          )
          .pipe(
            Effect.asVoid,
            Effect.catchTag("ConstraintBreach", (breach) =>
              breach.code === "23503"
                ? Effect.fail(
                    new ReferenceViolation({ kind: "serverToken", detail: `server '${row.serverId}' does not exist` }),
                  )
                : unexpected(breach),
            ),
          ),
      ),
    deleteServerToken: (id) => Effect.asVoid(rows("delete from server_tokens where id = $1", [id])),
    findServerToken: (id) =>
      one(`select ${serverTokenJson("k")} as r from server_tokens k where k.id = $1`, [id], decodeServerToken),
    findServerTokenByHash: (valueHash) =>
      one(
        `select ${serverTokenJson("k")} as r from server_tokens k where k.value_hash = $1`,
        [valueHash],
        decodeServerToken,
      ),
    listServerTokens: (serverId) =>
      many(
        `select ${serverTokenJson("k")} as r from server_tokens k where k.server_id = $1 order by k.created_at, k.id`,
        [serverId],
        decodeServerToken,
      ),
    countServerTokens: (serverId) =>
      count("select count(*)::int as n from server_tokens where server_id = $1", [serverId]),

    // Keyset pages over both places secrets live, in code unit order (COLLATE "C") as the port requires.
    listSecrets: (after, limit) =>
      Effect.map(
        rows(
          `select kind, id, ciphertext from (
             select 'providerClientSecret' as kind, id, oauth2_config->>'clientSecretCipher' as ciphertext
               from providers where oauth2_config->>'clientSecretCipher' is not null
             union all
             select 'variable', id, value from variables where type = 'SECRET') s
           where $1::text is null or (kind collate "C", id collate "C") > ($1::text collate "C", $2::text collate "C")
           order by kind collate "C", id collate "C"
           limit $3`,
          [after?.kind ?? null, after?.id ?? null, limit],
        ),
        (result) =>
          result.map((row) => ({
            kind: row.kind as SecretKind,
            id: String(row.id),
            ciphertext: String(row.ciphertext),
          })),
      ),
    replaceSecret: (secret, ciphertext) =>
      Effect.map(
        secret.kind === "variable"
          ? rows("update variables set value = $3 where id = $1 and type = 'SECRET' and value = $2 returning id", [
              secret.id,
              secret.ciphertext,
              ciphertext,
            ])
          : rows(
              `update providers set oauth2_config = jsonb_set(oauth2_config, '{clientSecretCipher}', to_jsonb($3::text))
               where id = $1 and oauth2_config->>'clientSecretCipher' = $2 returning id`,
              [secret.id, secret.ciphertext, ciphertext],
            ),
        (result) => result.length > 0,
      ),
  };
};
