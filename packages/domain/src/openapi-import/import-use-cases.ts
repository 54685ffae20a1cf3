import { Effect, Either } from "effect";
import { ResourceExhausted } from "../errors/domain-errors.js";
import { toProviderRecord } from "../provider/provider-record.js";
import { mergeOAuth2 } from "../provider/provider-use-cases.js";
import { secretPrefixOf } from "../provider/secret-prefix.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import type { ProviderRow, ToolRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { Quotas } from "../tenancy/quotas.js";
import {
  alreadyExists,
  blockedByReference,
  bumpProvider,
  lockProvider,
  lockQuota,
  now,
  ownedProvider,
  transact,
} from "../use-case/use-case-kit.js";
import { decodeEnvelope, decodePathId, invalid } from "../validation/decode-write.js";
import { withDescription } from "./description-source.js";
import type { ProviderImportInput, ProviderResyncInput } from "./import-input.js";
import { type ApiDescription, OpenApiReader } from "./api-description.js";
import { type ImportResult, ProviderImport, type ProviderResync } from "./import-schema.js";
import { PROVIDER_RESYNCED, providerFields, resyncedProvider } from "./provider-from-description.js";
import { mapOperations, usableOAuth2 } from "./operation-mapping.js";
import { uniqueNames } from "./tool-naming.js";
import { emptyReport, reportTool, storedKeys, toolRow, withoutNewIds } from "./imported-tool-rows.js";
import { plannedTools, renameClash, retiredTools, writeResync } from "./resync-steps.js";
import { orderedIds } from "../ids/ordered-ids.js";
import { canonical } from "../validation/canonical-json.js";
import { newProviderRow, roomForProvider } from "../provider/new-provider.js";

const ROOT = "import.document";

/**
 * A provider created from a description fetched from `url` documents itself there: the URL becomes
 * `import.provider.documentURL` unless the caller gave one (checked as if the caller had).
 */
const fetchedDocumentURL = (url: string) =>
  Effect.map(
    decodeEnvelope("import", ProviderImport, [], { import: { url, provider: { documentURL: url } } }),
    (input) => input.provider?.documentURL,
  );

const tooMany = (count: number, limit: number, others: number) =>
  new ResourceExhausted({
    detail:
      others === 0
        ? `the description maps to ${count} tools; a provider may hold at most ${limit}`
        : `the description maps to ${count} tools and the provider keeps ${others} others; a provider may hold at most ${limit}`,
  });

/**
 * Creates a provider from an OpenAPI description, one tool per operation (docs/api-rules.md §15), in one
 * transaction; `dryRun` reports the outcome and stores nothing. Answers whether it created the provider.
 */
export const importProvider = defineUseCase("importProvider", (actor: Actor, input: ProviderImportInput) =>
  withDescription(input.source, (document, fetchedFrom) =>
    Effect.gen(function* () {
      const overrides =
        fetchedFrom === undefined || input.provider?.documentURL !== undefined
          ? (input.provider ?? {})
          : { ...input.provider, documentURL: yield* fetchedDocumentURL(fetchedFrom) };
      const description = yield* (yield* OpenApiReader).read(document, ROOT);
      const provider = providerFields(description, overrides, { dryRun: input.dryRun === true, fetchedFrom });
      if (Either.isLeft(provider)) return yield* invalid(provider.left);
      const { fields, oauth2Scheme, standIn } = provider.right;
      const oauth2Config = yield* mergeOAuth2(null, fields.oauth2Config, "import.provider");
      // Without a server (a dry run only), the prefix a preview shows comes from the provider's name.
      const secretPrefix = standIn
        ? secretPrefixOf(
            `https://${
              fields.name
                .toLowerCase()
                .replace(/[^a-z0-9]+/g, "-")
                .replace(/^-|-$/g, "") || "api"
            }`,
          )
        : secretPrefixOf(fields.baseURL);
      const mapped = mapOperations(description, {
        secretPrefix,
        oauth2Scheme: oauth2Config === null ? undefined : oauth2Scheme,
        hasOAuth2Config: oauth2Config !== null,
        root: ROOT,
      });
      const quotas = yield* Quotas;
      if (mapped.drafts.length > quotas.toolsPerProvider)
        return yield* tooMany(mapped.drafts.length, quotas.toolsPerProvider, 0);
      const names = uniqueNames(
        mapped.drafts.map((d) => d.baseName),
        new Set(),
      );
      const at = yield* now;
      const row = newProviderRow(actor.tenant, at, { ...fields, secretPrefix, oauth2Config });
      const ids = orderedIds(mapped.drafts.length);
      const tools: Array<ToolRow> = mapped.drafts.map((draft, i) =>
        toolRow(draft, names[i]!, { id: ids[i]!, providerId: row.id, createdAt: at, updatedAt: at }),
      );
      const report = emptyReport();
      report.added = tools.map(reportTool);
      report.skipped = [...mapped.skipped];
      report.warnings = [...provider.right.warnings, ...description.warnings, ...mapped.warnings];
      const record = toProviderRecord(row, tools);
      if (input.dryRun === true) {
        const preview: ImportResult = {
          provider: withoutNewIds(record, new Set(tools.map((t) => t.id)), true),
          report,
        };
        return { created: false, result: preview };
      }
      yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockQuota(tx, "providers", actor.tenant);
          yield* roomForProvider(tx, actor.tenant);
          yield* tx.insertProvider(row).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
          for (const tool of tools)
            yield* tx.insertTool(tool).pipe(
              Effect.catchTags({
                UniqueViolation: (e) => Effect.fail(alreadyExists(e)),
                ReferenceViolation: (e) => Effect.fail(blockedByReference(e)),
              }),
            );
        }),
      );
      const result: ImportResult = { provider: record, report };
      return { created: true, result };
    }),
  ),
);

/** The re-sync of a provider's imported tools with a description, inside the transaction `tx`. */
const resync = (
  tx: StorageTx,
  actor: Actor,
  id: string,
  description: ApiDescription,
  dryRun: boolean,
  overrides: ProviderResync["provider"],
  fetchedFrom: string | undefined,
) =>
  Effect.gen(function* () {
    yield* lockProvider(tx, id);
    const stored_ = yield* ownedProvider(tx, actor, id);
    const provider = yield* resyncedProvider(stored_, description, overrides, fetchedFrom);
    const providerChanged = PROVIDER_RESYNCED.some((field) => canonical(stored_[field]) !== canonical(provider[field]));
    const stored = yield* tx.listTools(id);
    const mapped = mapOperations(description, {
      secretPrefix: provider.secretPrefix,
      oauth2Scheme: provider.oauth2Config === null ? undefined : usableOAuth2(description)?.name,
      hasOAuth2Config: provider.oauth2Config !== null,
      root: ROOT,
    });
    const byKey = new Map<string, ToolRow>();
    const keyOf = storedKeys(stored);
    for (const [tool, key] of keyOf) if (!byKey.has(key)) byKey.set(key, tool);
    const report = emptyReport();
    report.skipped = [...mapped.skipped];
    report.warnings = [...description.warnings, ...mapped.warnings];

    const { removed, kept } = yield* retiredTools(
      tx,
      { stored, keyOf, byKey },
      new Set(mapped.drafts.map((d) => d.key)),
      report,
    );
    const others = stored.filter((t) => !t.imported).length + kept.length;
    const quotas = yield* Quotas;
    if (mapped.drafts.length + others > quotas.toolsPerProvider)
      return yield* tooMany(mapped.drafts.length, quotas.toolsPerProvider, others);

    const taken = new Set([...stored.filter((t) => !t.imported), ...kept].map((t) => t.name));
    const names = uniqueNames(
      mapped.drafts.map((d) => d.baseName),
      taken,
    );
    const at = yield* now;
    const ids = orderedIds(mapped.drafts.length);
    const { inserts, updates, result } = plannedTools(mapped.drafts, names, ids, byKey, id, at, report);
    // The provider's tools afterwards, in creation order: the ones this import does not own, then its own.
    const tools = [...stored.filter((t) => !removed.includes(t)).map((t) => result.get(t.id) ?? t), ...inserts];
    const nameBefore = new Map(stored.map((t) => [t.id, t.name]));
    const renamed = updates.filter((row) => row.name !== nameBefore.get(row.id));
    yield* renameClash(tx, renamed, tools, removed);
    const changed = inserts.length + updates.length + removed.length > 0 || providerChanged;
    const after: ProviderRow = changed ? { ...provider, version: provider.version + 1, updatedAt: at } : provider;
    if (dryRun || !changed) return { provider: after, tools, inserts, report };

    yield* writeResync(tx, { removed, renamed, updates, inserts });
    yield* bumpProvider(tx, { ...provider, version: stored_.version }, at);
    return { provider: after, tools, inserts, report };
  });

/**
 * Re-syncs a provider with a new version of its description (docs/api-rules.md §15): operations match the
 * imported tools by method and path template; matched tools keep their ids, new operations add tools, tools of
 * removed operations go unless a server uses them. One transaction, one version step; `dryRun` stores nothing.
 */
export const resyncProvider = defineUseCase("resyncProvider", (actor: Actor, input: ProviderResyncInput) =>
  Effect.zipRight(
    decodePathId("id", input.providerId),
    withDescription(input.source, (document, fetchedFrom) =>
      Effect.gen(function* () {
        const id = input.providerId;
        const description = yield* (yield* OpenApiReader).read(document, ROOT);
        const dryRun = input.dryRun === true;
        const outcome = yield* transact((tx) =>
          resync(tx, actor, id, description, dryRun, input.provider, fetchedFrom),
        );
        const record = toProviderRecord(outcome.provider, outcome.tools);
        return {
          provider: dryRun ? withoutNewIds(record, new Set(outcome.inserts.map((t) => t.id)), false) : record,
          report: outcome.report,
        } satisfies ImportResult;
      }),
    ),
  ),
);

/** The OpenAPI import's use cases under their operation names. */
export const OPENAPI_IMPORT_USE_CASES = { importProvider, resyncProvider } as const;
