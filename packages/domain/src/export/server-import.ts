import { Data, Effect } from "effect";
import { AlreadyExists, type FieldProblem, ResourceExhausted } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import { DEFAULT_MAX_RESULT_TOKENS } from "../response-shaping/response-filter.js";
import { responseFilterProblems } from "../response-shaping/response-shaping-port.js";
import { toServerRecord } from "../server/server-record.js";
import { checkDistinctToolNames } from "../server/server-composition.js";
import type { ServerRecord } from "../server/server-schema.js";
import type { ServerProviderLink, ServerRow, ToolRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { Quotas } from "../tenancy/quotas.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { alreadyExists, lockQuota, now, StaleRead, transact } from "../use-case/use-case-kit.js";
import { invalid } from "../validation/decode-write.js";
import { validateInput } from "../validation/validate-input.js";
import { documentProblems } from "./document-checks.js";
import { providersNamed } from "./providers-named.js";
import { emptyReport, withoutNewIds } from "./server-import-report.js";
import { createdProvider } from "./created-provider.js";
import { holdsAll, reusedProvider } from "./reused-provider.js";
import type { ImportRun, ResolvedProvider } from "./server-import-run.js";
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

/**
 * The server first (empty), so that the audit event of the import names the server. Its insert checks the
 * server quota (as createServer's does): a full tenant gets nothing written.
 */
const insertEmptyServer = (run: ImportRun, document: ServerExportDocument) =>
  Effect.gen(function* () {
    const { tx, actor, at, quotas } = run;
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
    run.newIds.add(server.id);
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
    return server;
  });

/**
 * The tenant's provider for the document's `providers[i]`: its own of that name (which must have the same
 * baseURL), else another tenant's PUBLIC one of that name and baseURL that holds every member, else a new one.
 */
const resolvedProvider = (run: ImportRun, doc: ExportedProvider, i: number) =>
  Effect.gen(function* () {
    const named = yield* providersNamed(run.tx, run.actor, doc.name);
    const own = named.find((p) => p.tenant === run.actor.tenant);
    if (own !== undefined && own.baseURL !== doc.baseURL)
      return yield* new AlreadyExists({
        detail: `providers[${i}]: the tenant has a provider named '${doc.name}' with another baseURL ('${own.baseURL}'); rename the provider in the document, or give it that baseURL to reuse it`,
      });
    if (own !== undefined) return yield* reusedProvider(run, own, doc, i);
    for (const candidate of named)
      if (candidate.baseURL === doc.baseURL && (yield* holdsAll(run, candidate, doc)))
        return yield* reusedProvider(run, candidate, doc, i);
    return yield* createdProvider(run, doc, i);
  });

/** What the server takes of a resolved provider: the link, the chosen tools' settings, prompts and resources. */
const serverPartOf = (resolved: ResolvedProvider, doc: ExportedProvider, i: number) =>
  Effect.gen(function* () {
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
    return {
      toolSettings,
      link: linked ? { providerId: resolved.row.id, toolIds: resolved.tools.map((t) => t.id) } : undefined,
      tools: resolved.tools,
      promptIds: resolved.prompts.map((p) => p.id),
      resourceIds: resolved.resources.map((r) => r.id),
    } satisfies ProviderOutcome;
  });

/** Gives the empty server its providers' parts (tool names distinct across them). */
const composeServer = (run: ImportRun, server: ServerRow, outcomes: ReadonlyArray<ProviderOutcome>) =>
  Effect.gen(function* () {
    const toolSettings = outcomes.flatMap((o) => o.toolSettings);
    yield* checkDistinctToolNames(
      outcomes.flatMap((o) => o.tools),
      toolSettings,
    );
    const composed: ServerRow = {
      ...server,
      toolSettings,
      providers: outcomes.flatMap((o) => (o.link === undefined ? [] : [o.link])),
      promptIds: outcomes.flatMap((o) => o.promptIds),
      resourceIds: outcomes.flatMap((o) => o.resourceIds),
    };
    const applied = yield* run.tx.updateServer(composed, server.version).pipe(
      Effect.catchTags({
        UniqueViolation: (e) => Effect.fail(alreadyExists(e)),
        ReferenceViolation: () => Effect.fail(new StaleRead({ conditional: false })),
      }),
    );
    if (!applied) return yield* new StaleRead({ conditional: false });
  });

/** Reports the variables the chosen tools reference that the tenant lacks, typed as the document declares them. */
const reportMissingVariables = (run: ImportRun, document: ServerExportDocument, chosen: ReadonlyArray<ToolRow>) =>
  Effect.gen(function* () {
    const names = variablesReferencedBy(chosen);
    const have = new Set(
      (names.length === 0 ? [] : yield* run.tx.findVariablesByName(run.actor.tenant, names)).map((v) => v.name),
    );
    const declared = new Map(document.variables.map((v) => [v.name, v]));
    for (const name of names)
      if (!have.has(name)) {
        const variable = declared.get(name);
        run.report.missingVariables.push(
          variable === undefined
            ? { name }
            : { name, type: variable.type, ...(variable.perCaller === true ? { perCaller: true } : {}) },
        );
      }
  });

/** The import of one document, inside the transaction `tx`; `newIds` collects the ids of records it creates. */
const importInto = (tx: StorageTx, actor: Actor, document: ServerExportDocument, newIds: Set<string>) =>
  Effect.gen(function* () {
    const quotas = yield* Quotas;
    // Fixed order: the server quota serialises this tenant's imports, the provider quota its provider creates.
    yield* lockQuota(tx, "servers", actor.tenant);
    yield* lockQuota(tx, "providers", actor.tenant);
    const run: ImportRun = { tx, actor, at: yield* now, quotas, report: emptyReport(), newIds };
    const server = yield* insertEmptyServer(run, document);
    const outcomes: Array<ProviderOutcome> = [];
    for (const [i, doc] of document.providers.entries())
      outcomes.push(yield* serverPartOf(yield* resolvedProvider(run, doc, i), doc, i));
    yield* composeServer(run, server, outcomes);
    yield* reportMissingVariables(
      run,
      document,
      outcomes.flatMap((o) => o.tools),
    );
    const graph = yield* tx.findServerGraph(server.id);
    if (graph === undefined) return yield* new StaleRead({ conditional: false });
    return { server: toServerRecord(graph), report: run.report as ServerImportReport } satisfies Imported;
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
