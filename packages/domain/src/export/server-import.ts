import { Data, Effect } from "effect";
import { AlreadyExists, type FieldProblem, PermissionDenied, ResourceExhausted } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import { DEFAULT_MAX_RESULT_TOKENS } from "../response-shaping/response-filter.js";
import { responseFilterProblems } from "../response-shaping/response-shaping-port.js";
import { matchKey } from "../openapi-import/operation-mapping.js";
import { newProviderRow, roomForProvider } from "../provider/new-provider.js";
import { orderedIds } from "../ids/ordered-ids.js";
import { toServerRecord } from "../server/server-record.js";
import { checkDistinctToolNames } from "../server/server-composition.js";
import type { ServerRecord } from "../server/server-schema.js";
import type { PromptRow, ProviderRow, ResourceRow, ServerProviderLink, ServerRow, ToolRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { Quotas } from "../tenancy/quotas.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import {
  alreadyExists,
  bumpProvider,
  lockProvider,
  lockQuota,
  now,
  StaleRead,
  transact,
} from "../use-case/use-case-kit.js";
import { invalid } from "../validation/decode-write.js";
import { validateInput } from "../validation/validate-input.js";
import { documentProblems } from "./document-checks.js";
import { providersNamed } from "./providers-named.js";
import { emptyReport, withoutNewIds } from "./server-import-report.js";
import { type Base, differingFields, promptRowOf, resourceRowOf, toolRowOf } from "./exported-rows.js";
import { variablesReferencedBy } from "./export-document.js";
import { patchedToolSettings } from "../server/server-tool-settings.js";
import { DEFAULT_TOOL_SETTINGS, type ServerToolSettingsRow } from "../server/tool-settings-schema.js";
import {
  type ExportedProvider,
  ServerExportDocument,
  type ServerImportReport,
  type ServerImportResult,
} from "./export-schema.js";

// POST /servers/import (docs/api-rules.md §16): one transaction creates the server and whatever of its
// providers, tools, prompts and resources the tenant lacks, reusing what it has; a dry run runs the very same
// transaction and rolls it back, so its answer is exactly what the import would do. Choices: docs/decisions.md.

/** Input of `importServer`: a decoded export document, and whether to store nothing. */
export interface ImportServerInput {
  readonly document: ServerExportDocument;
  readonly dryRun?: boolean | undefined;
}

/** Carries a dry run's answer out of its transaction, which is rolled back by failing. */
class DryRunRollback extends Data.TaggedError("DryRunRollback")<{ readonly result: Imported }> {}

/** What an import stored: the server's record and the report. */
interface Imported {
  readonly server: ServerRecord;
  readonly report: ServerImportReport;
}

/** What one provider of the document resolved to, and which of its members the server gets. */
interface ProviderOutcome {
  readonly link: ServerProviderLink | undefined;
  readonly tools: ReadonlyArray<ToolRow>;
  /** The chosen tools' settings in the server (docs/api-rules.md §20). */
  readonly toolSettings: ReadonlyArray<ServerToolSettingsRow>;
  readonly promptIds: ReadonlyArray<string>;
  readonly resourceIds: ReadonlyArray<string>;
}

/** The import of one document, inside the transaction `tx`; `newIds` collects the ids of records it creates. */
const importInto = (tx: StorageTx, actor: Actor, document: ServerExportDocument, newIds: Set<string>) =>
  Effect.gen(function* () {
    const quotas = yield* Quotas;
    // Fixed order: the server quota serialises this tenant's imports, the provider quota its provider creates.
    yield* lockQuota(tx, "servers", actor.tenant);
    yield* lockQuota(tx, "providers", actor.tenant);
    const at = yield* now;
    const report = emptyReport();
    const mayCreate = actor.scopes.has("provider:create");
    const needCreate = (what: string) =>
      mayCreate
        ? Effect.void
        : Effect.fail(
            new PermissionDenied({
              detail: `importing this document creates ${what}, which needs the scope 'provider:create'`,
              requiredScope: "provider:create",
            }),
          );

    // The server first (empty), so that the audit event of the import names the server. Its insert checks the
    // server quota (as createServer's does): a full tenant gets nothing written.
    const server: ServerRow = {
      id: newId(),
      tenant: actor.tenant,
      createdAt: at,
      updatedAt: at,
      version: 1,
      name: document.server.name,
      description: document.server.description ?? "",
      requestHeadersProxyEnabled: document.server.requestHeadersProxyEnabled ?? false,
      dynamicToolDiscoveryEnabled: document.server.dynamicToolDiscoveryEnabled ?? false,
      maxResultTokens: document.server.maxResultTokens ?? DEFAULT_MAX_RESULT_TOKENS,
      approvalPolicy: document.server.approvalPolicy ?? "NONE",
      toolSettings: [],
      providers: [],
      resourceIds: [],
      promptIds: [],
    };
    newIds.add(server.id);
    const inserted = yield* tx.insertServer(server, quotas.serversPerTenant).pipe(
      Effect.catchTags({
        UniqueViolation: () =>
          Effect.fail(
            new AlreadyExists({
              detail: `a server named '${server.name}' already exists: change server.name in the document to import it beside it`,
            }),
          ),
        ReferenceViolation: (e) => Effect.die(e),
      }),
    );
    if (!inserted)
      return yield* new ResourceExhausted({ detail: `the tenant already has ${quotas.serversPerTenant} servers` });

    /** Inserts a document's member rows, mapping a uniqueness breach to 409 naming the document path. */
    const insertAll = <R extends { readonly id: string }>(
      rows: ReadonlyArray<R>,
      insert: (row: R) => Effect.Effect<void, { readonly _tag: "UniqueViolation" | "ReferenceViolation" }>,
      at: (i: number) => string,
    ) =>
      Effect.forEach(
        rows.entries(),
        ([i, row]) =>
          insert(row).pipe(
            Effect.tap(() => newIds.add(row.id)),
            Effect.catchAll((e) =>
              Effect.fail(
                new AlreadyExists({
                  detail: `${at(i)}: ${e._tag === "UniqueViolation" ? "the name is taken on the tenant's provider" : "its provider is gone"}`,
                }),
              ),
            ),
          ),
        { discard: true },
      );

    /** A provider of the document that the tenant lacks: created with all its members. */
    const create = (doc: ExportedProvider, i: number) =>
      Effect.gen(function* () {
        yield* needCreate(`provider '${doc.name}'`);
        yield* roomForProvider(tx, actor.tenant);
        if (doc.tools.length > quotas.toolsPerProvider)
          return yield* new ResourceExhausted({
            detail: `providers[${i}] has ${doc.tools.length} tools; a provider may hold at most ${quotas.toolsPerProvider}`,
          });
        const row = newProviderRow(actor.tenant, at, {
          ...doc,
          oauth2Config:
            doc.oauth2Config === undefined
              ? null
              : {
                  clientID: doc.oauth2Config.clientID ?? "",
                  clientSecretCipher: null,
                  authURL: doc.oauth2Config.authURL ?? "",
                  tokenURL: doc.oauth2Config.tokenURL ?? "",
                },
        });
        yield* tx.insertProvider(row).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
        newIds.add(row.id);
        const base = (id: string): Base => ({ id, providerId: row.id, createdAt: at, updatedAt: at });
        const toolIds = orderedIds(doc.tools.length);
        const tools = doc.tools.map((tool, j) => toolRowOf(tool, base(toolIds[j]!)));
        const prompts = orderedIds(doc.prompts.length).map((id, j) => promptRowOf(doc.prompts[j]!, base(id)));
        const resources = orderedIds(doc.resources.length).map((id, j) => resourceRowOf(doc.resources[j]!, base(id)));
        yield* insertAll(tools, tx.insertTool, (j) => `providers[${i}].tools[${j}]`);
        yield* insertAll(prompts, tx.insertPrompt, (j) => `providers[${i}].prompts[${j}]`);
        yield* insertAll(resources, tx.insertResource, (j) => `providers[${i}].resources[${j}]`);
        report.providers.created.push({ id: row.id, name: row.name, baseURL: row.baseURL });
        for (const tool of tools)
          report.tools.created.push({ provider: row.name, name: tool.name, method: tool.method, path: tool.path });
        for (const p of prompts) report.prompts.created.push({ provider: row.name, name: p.name });
        for (const r of resources) report.resources.created.push({ provider: row.name, name: r.name });
        if (row.oauth2Config !== null)
          report.warnings.push({
            path: `providers[${i}].oauth2Config`,
            message: `provider '${row.name}' was created without a client secret (an export never holds one): set oauth2Config.clientSecret with PATCH /providers/{id} if its authorization server requires one`,
          });
        return { row, tools, prompts, resources };
      });

    /**
     * A provider the tenant has (same name and baseURL): its tools are matched by method and path, its prompts
     * and resources by name; what it lacks is created on it (the tenant's own provider only).
     */
    const reuse = (stored: ProviderRow, doc: ExportedProvider, i: number) =>
      Effect.gen(function* () {
        const own = stored.tenant === actor.tenant;
        if (own) yield* lockProvider(tx, stored.id);
        const current = own ? ((yield* tx.findProvider(stored.id)) ?? stored) : stored;
        const haveTools = yield* tx.listTools(current.id);
        const havePrompts = yield* tx.listPrompts(current.id);
        const haveResources = yield* tx.listResources(current.id);
        const byKey = new Map<string, ToolRow>();
        for (const tool of haveTools)
          if (!byKey.has(matchKey(tool.method, tool.path))) byKey.set(matchKey(tool.method, tool.path), tool);
        const promptByName = new Map(havePrompts.map((p) => [p.name, p]));
        const resourceByName = new Map(haveResources.map((r) => [r.name, r]));
        const lacking = {
          tools: doc.tools.filter((t) => !byKey.has(matchKey(t.method, t.path))),
          prompts: doc.prompts.filter((p) => !promptByName.has(p.name)),
          resources: doc.resources.filter((r) => !resourceByName.has(r.name)),
        };
        const lacks = lacking.tools.length + lacking.prompts.length + lacking.resources.length;
        if (lacks > 0) {
          yield* needCreate(`${lacks} tool(s), prompt(s) or resource(s) on provider '${current.name}'`);
          if (haveTools.length + lacking.tools.length > quotas.toolsPerProvider)
            return yield* new ResourceExhausted({
              detail: `provider '${current.name}' would hold ${haveTools.length + lacking.tools.length} tools; a provider may hold at most ${quotas.toolsPerProvider}`,
            });
        }
        const base = (id: string): Base => ({ id, providerId: current.id, createdAt: at, updatedAt: at });
        const toolIds = orderedIds(lacking.tools.length);
        const newTools = lacking.tools.map((tool, j) => toolRowOf(tool, base(toolIds[j]!)));
        const newPrompts = orderedIds(lacking.prompts.length).map((id, j) =>
          promptRowOf(lacking.prompts[j]!, base(id)),
        );
        const newResources = orderedIds(lacking.resources.length).map((id, j) =>
          resourceRowOf(lacking.resources[j]!, base(id)),
        );
        const pathOf = (kind: "tools" | "prompts" | "resources", item: object) =>
          `providers[${i}].${kind}[${(doc[kind] as ReadonlyArray<object>).indexOf(item)}]`;
        yield* insertAll(newTools, tx.insertTool, (j) => pathOf("tools", lacking.tools[j]!));
        yield* insertAll(newPrompts, tx.insertPrompt, (j) => pathOf("prompts", lacking.prompts[j]!));
        yield* insertAll(newResources, tx.insertResource, (j) => pathOf("resources", lacking.resources[j]!));
        if (lacks > 0) yield* bumpProvider(tx, current, at);

        const created = new Map(lacking.tools.map((t, j) => [t, newTools[j]!]));
        const tools = doc.tools.map((t) => {
          const match = byKey.get(matchKey(t.method, t.path));
          if (match !== undefined) {
            report.tools.matched.push({
              provider: current.name,
              name: match.name,
              method: match.method,
              path: match.path,
              differs: differingFields(match, t),
            });
            return match;
          }
          const row = created.get(t)!;
          report.tools.created.push({ provider: current.name, name: row.name, method: row.method, path: row.path });
          return row;
        });
        const newPromptOf = new Map(lacking.prompts.map((p, j) => [p, newPrompts[j]!]));
        const prompts = doc.prompts.map((p) => {
          const match = promptByName.get(p.name);
          (match === undefined ? report.prompts.created : report.prompts.matched).push({
            provider: current.name,
            name: p.name,
          });
          return match ?? newPromptOf.get(p)!;
        });
        const newResourceOf = new Map(lacking.resources.map((r, j) => [r, newResources[j]!]));
        const resources = doc.resources.map((r) => {
          const match = resourceByName.get(r.name);
          (match === undefined ? report.resources.created : report.resources.matched).push({
            provider: current.name,
            name: r.name,
          });
          return match ?? newResourceOf.get(r)!;
        });
        report.providers.reused.push({ id: current.id, name: current.name, baseURL: current.baseURL });
        return { row: current, tools, prompts, resources };
      });

    /** Whether a provider of another tenant already holds every member of the document's provider. */
    const holdsAll = (stored: ProviderRow, doc: ExportedProvider) =>
      Effect.gen(function* () {
        const keys = new Set((yield* tx.listTools(stored.id)).map((t) => matchKey(t.method, t.path)));
        const prompts = new Set((yield* tx.listPrompts(stored.id)).map((p) => p.name));
        const resources = new Set((yield* tx.listResources(stored.id)).map((r) => r.name));
        return (
          doc.tools.every((t) => keys.has(matchKey(t.method, t.path))) &&
          doc.prompts.every((p) => prompts.has(p.name)) &&
          doc.resources.every((r) => resources.has(r.name))
        );
      });

    const outcomes: Array<ProviderOutcome> = [];
    for (const [i, doc] of document.providers.entries()) {
      const named = yield* providersNamed(tx, actor, doc.name);
      const own = named.find((p) => p.tenant === actor.tenant);
      if (own !== undefined && own.baseURL !== doc.baseURL)
        return yield* new AlreadyExists({
          detail: `providers[${i}]: the tenant has a provider named '${doc.name}' with another baseURL ('${own.baseURL}'); rename the provider in the document, or give it that baseURL to reuse it`,
        });
      let resolved:
        | {
            row: ProviderRow;
            tools: ReadonlyArray<ToolRow>;
            prompts: ReadonlyArray<PromptRow>;
            resources: ReadonlyArray<ResourceRow>;
          }
        | undefined;
      if (own !== undefined) resolved = yield* reuse(own, doc, i);
      else
        for (const candidate of named)
          if (candidate.baseURL === doc.baseURL && (yield* holdsAll(candidate, doc))) {
            resolved = yield* reuse(candidate, doc, i);
            break;
          }
      if (resolved === undefined) resolved = yield* create(doc, i);
      // A provider listed only for the server's prompts or resources does not join the server's providers.
      const linked = doc.tools.length > 0 || (doc.prompts.length === 0 && doc.resources.length === 0);
      const toolSettings: Array<ServerToolSettingsRow> = [];
      for (const [j, tool] of resolved.tools.entries()) {
        const patch = doc.tools[j]?.serverSettings;
        if (patch === undefined) continue;
        const settings = yield* patchedToolSettings(
          tool,
          DEFAULT_TOOL_SETTINGS,
          patch,
          `providers[${i}].tools[${j}].serverSettings`,
        );
        toolSettings.push({ toolId: tool.id, ...settings });
      }
      outcomes.push({
        toolSettings,
        link: linked ? { providerId: resolved.row.id, toolIds: resolved.tools.map((t) => t.id) } : undefined,
        tools: resolved.tools,
        promptIds: resolved.prompts.map((p) => p.id),
        resourceIds: resolved.resources.map((r) => r.id),
      });
    }

    const chosen = outcomes.flatMap((o) => o.tools);
    const toolSettings = outcomes.flatMap((o) => o.toolSettings);
    yield* checkDistinctToolNames(chosen, toolSettings);
    const composed: ServerRow = {
      ...server,
      toolSettings,
      providers: outcomes.flatMap((o) => (o.link === undefined ? [] : [o.link])),
      promptIds: outcomes.flatMap((o) => o.promptIds),
      resourceIds: outcomes.flatMap((o) => o.resourceIds),
    };
    const applied = yield* tx.updateServer(composed, server.version).pipe(
      Effect.catchTags({
        UniqueViolation: (e) => Effect.fail(alreadyExists(e)),
        ReferenceViolation: () => Effect.fail(new StaleRead({ conditional: false })),
      }),
    );
    if (!applied) return yield* new StaleRead({ conditional: false });

    const names = variablesReferencedBy(chosen);
    const have = new Set(
      (names.length === 0 ? [] : yield* tx.findVariablesByName(actor.tenant, names)).map((v) => v.name),
    );
    const declared = new Map(document.variables.map((v) => [v.name, v]));
    for (const name of names)
      if (!have.has(name)) {
        const variable = declared.get(name);
        report.missingVariables.push(
          variable === undefined
            ? { name }
            : { name, type: variable.type, ...(variable.perCaller === true ? { perCaller: true } : {}) },
        );
      }

    const graph = yield* tx.findServerGraph(server.id);
    if (graph === undefined) return yield* new StaleRead({ conditional: false });
    return { server: toServerRecord(graph), report: report as ServerImportReport } satisfies Imported;
  });

/** Checks a document beyond its schema; every problem located by its path in the document. */
const checkDocument = (document: ServerExportDocument) =>
  Effect.flatMap(validateInput("", ServerExportDocument, document), (checked) =>
    Effect.flatMap(
      // Each tool's response filter compiled (docs/api-rules.md §19), before the transaction.
      Effect.forEach(checked.providers, (provider, p) =>
        Effect.forEach(provider.tools, (tool, t) =>
          responseFilterProblems(tool.responseFilter, `providers[${p}].tools[${t}].responseFilter`),
        ),
      ),
      (filterProblems) => {
        const problems: ReadonlyArray<FieldProblem> = [...documentProblems(checked), ...filterProblems.flat(2)];
        return problems.length > 0 ? Effect.fail(invalid(problems)) : Effect.succeed(checked);
      },
    ),
  );

/**
 * Creates a server of the actor's tenant from an export document (docs/api-rules.md §16), reusing the tenant's
 * providers (same name and baseURL; tools matched by method and path, prompts and resources by name) and
 * creating what it lacks, which needs `provider:create` as well. One transaction: any refusal stores nothing;
 * `dryRun` runs it all and rolls it back. Answers `{stored, result}`: `stored` is false for a dry run, whose
 * `result` has no ids for the records it would have created.
 */
export const importServer = defineUseCase("importServer", (actor: Actor, { document, dryRun }: ImportServerInput) =>
  Effect.gen(function* () {
    const checked = yield* checkDocument(document);
    const newIds = new Set<string>();
    const outcome = yield* transact((tx) =>
      Effect.suspend(() => {
        newIds.clear();
        return Effect.flatMap(importInto(tx, actor, checked, newIds), (result) =>
          dryRun === true ? Effect.fail(new DryRunRollback({ result })) : Effect.succeed(result),
        );
      }),
    ).pipe(
      Effect.map((result): { stored: boolean; result: ServerImportResult } => ({ stored: true, result })),
      Effect.catchTag("DryRunRollback", ({ result }) =>
        Effect.succeed({
          stored: false,
          result: {
            server: withoutNewIds(result.server, newIds),
            report: {
              ...result.report,
              providers: {
                reused: result.report.providers.reused,
                created: result.report.providers.created.map(({ id: _, ...provider }) => provider),
              },
            },
          },
        }),
      ),
    );
    return outcome;
  }),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const SERVER_IMPORT_USE_CASES = { importServer } as const;
