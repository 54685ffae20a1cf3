import { Effect } from "effect";
import { AlreadyExists } from "../errors/domain-errors.js";
import type { ToolRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import { alreadyExists, blockedByReference } from "../use-case/use-case-kit.js";
import type { ImportReport } from "./import-schema.js";
import { changedFields, type Mutable, reportTool, toolRow } from "./imported-tool-rows.js";
import type { ToolDraft } from "./operation-mapping.js";

// The steps of a re-sync (docs/api-rules.md §15), in the order `resync` runs them inside its transaction:
// the imported tools whose operation is gone, the rows the description's operations become, the check that
// no rename takes a name a server already shows, and the writes.

type Report = Mutable<ImportReport>;

/** The provider's stored tools as the re-sync matches them: by operation key, first tool per key. */
export interface StoredTools {
  readonly stored: ReadonlyArray<ToolRow>;
  readonly keyOf: ReadonlyMap<ToolRow, string>;
  readonly byKey: ReadonlyMap<string, ToolRow>;
}

/** Imported tools whose operation is gone: `removed` when no server uses them, else `kept` (and reported). */
export const retiredTools = (tx: StorageTx, tools: StoredTools, draftKeys: ReadonlySet<string>, report: Report) =>
  Effect.gen(function* () {
    const removed: Array<ToolRow> = [];
    const kept: Array<ToolRow> = [];
    for (const tool of tools.stored) {
      const key = tools.keyOf.get(tool) ?? "";
      if (!tool.imported || (draftKeys.has(key) && tools.byKey.get(key) === tool)) continue;
      const users = yield* tx.serversReferencing({ kind: "tool", id: tool.id });
      if (users.length === 0) {
        removed.push(tool);
        report.removed.push(reportTool(tool));
      } else {
        kept.push(tool);
        report.kept.push({ ...reportTool(tool), reason: `its operation is gone but ${users.length} server(s) use it` });
      }
    }
    return { removed, kept };
  });

/** The rows the drafts become: new tools, changed tools (reported with their fields), and every row by id. */
export const plannedTools = (
  drafts: ReadonlyArray<ToolDraft>,
  names: ReadonlyArray<string>,
  ids: ReadonlyArray<string>,
  byKey: ReadonlyMap<string, ToolRow>,
  providerId: string,
  at: Date,
  report: Report,
) => {
  const inserts: Array<ToolRow> = [];
  const updates: Array<ToolRow> = [];
  const result = new Map<string, ToolRow>();
  for (const [i, draft] of drafts.entries()) {
    const match = byKey.get(draft.key);
    if (match === undefined) {
      const row = toolRow(draft, names[i]!, { id: ids[i]!, providerId, createdAt: at, updatedAt: at });
      inserts.push(row);
      report.added.push(reportTool(row));
      result.set(row.id, row);
      continue;
    }
    const next = toolRow(
      draft,
      names[i]!,
      { id: match.id, providerId, createdAt: match.createdAt, updatedAt: at },
      match,
    );
    const fields = changedFields(match, next);
    if (fields.length === 0) {
      report.unchanged++;
      result.set(match.id, match);
    } else {
      updates.push(next);
      report.changed.push({ ...reportTool(next), fields });
      result.set(next.id, next);
    }
  }
  return { inserts, updates, result };
};

/**
 * Fails when a renamed tool would take the name of another tool chosen by a server that uses it (as names
 * are after the re-sync: tools of the provider may swap names).
 */
export const renameClash = (
  tx: StorageTx,
  renamed: ReadonlyArray<ToolRow>,
  after: ReadonlyArray<ToolRow>,
  removed: ReadonlyArray<ToolRow>,
) =>
  Effect.gen(function* () {
    const nameAfter = new Map(after.map((t) => [t.id, t.name]));
    for (const row of renamed)
      for (const user of yield* tx.serversReferencing({ kind: "tool", id: row.id })) {
        const graph = yield* tx.findServerGraph(user.id);
        const clash = graph?.tools.some(
          (t) => t.id !== row.id && !removed.some((r) => r.id === t.id) && (nameAfter.get(t.id) ?? t.name) === row.name,
        );
        if (clash)
          return yield* new AlreadyExists({
            detail: `tool '${row.id}' would be renamed '${row.name}', a name server '${user.id}' already has`,
          });
      }
  });

/** The re-sync's writes: deletions, renames parked under names no tool can have, updates, inserts. */
export const writeResync = (
  tx: StorageTx,
  plan: {
    readonly removed: ReadonlyArray<ToolRow>;
    readonly renamed: ReadonlyArray<ToolRow>;
    readonly updates: ReadonlyArray<ToolRow>;
    readonly inserts: ReadonlyArray<ToolRow>;
  },
) =>
  Effect.gen(function* () {
    for (const tool of plan.removed)
      yield* tx
        .deleteTool(tool.id)
        .pipe(Effect.catchTag("ReferenceViolation", (e) => Effect.fail(blockedByReference(e))));
    // Renames may swap names between tools: park the renamed ones first.
    for (const row of plan.renamed)
      yield* tx
        .updateTool({ ...row, name: `~${row.id}` })
        .pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
    for (const row of plan.updates)
      yield* tx.updateTool(row).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
    for (const row of plan.inserts)
      yield* tx.insertTool(row).pipe(
        Effect.catchTags({
          UniqueViolation: (e) => Effect.fail(alreadyExists(e)),
          ReferenceViolation: (e) => Effect.fail(blockedByReference(e)),
        }),
      );
  });
