import { Effect } from "effect";
import { ResourceExhausted } from "../errors/domain-errors.js";
import { orderedIds } from "../ids/ordered-ids.js";
import { matchKey } from "../openapi-import/operation-mapping.js";
import type { ProviderRow, ToolRow } from "../storage/rows.js";
import { bumpProvider, lockProvider } from "../use-case/use-case-kit.js";
import type { ExportedProvider } from "./export-schema.js";
import { type Base, differingFields, promptRowOf, resourceRowOf, toolRowOf } from "./exported-rows.js";
import { type ImportRun, insertAll, needCreate, type ResolvedProvider } from "./server-import-run.js";

/** Whether a provider of another tenant already holds every member of the document's provider. */
export const holdsAll = (run: ImportRun, stored: ProviderRow, doc: ExportedProvider) =>
  Effect.gen(function* () {
    const { tx } = run;
    const keys = new Set((yield* tx.listTools(stored.id)).map((t) => matchKey(t.method, t.path)));
    const prompts = new Set((yield* tx.listPrompts(stored.id)).map((p) => p.name));
    const resources = new Set((yield* tx.listResources(stored.id)).map((r) => r.name));
    return (
      doc.tools.every((t) => keys.has(matchKey(t.method, t.path))) &&
      doc.prompts.every((p) => prompts.has(p.name)) &&
      doc.resources.every((r) => resources.has(r.name))
    );
  });

/**
 * A provider the tenant has (same name and baseURL) for the document's `providers[i]`: its tools are matched
 * by method and path, its prompts and resources by name; what it lacks is created on it (the tenant's own
 * provider only).
 */
export const reusedProvider = (run: ImportRun, stored: ProviderRow, doc: ExportedProvider, i: number) =>
  Effect.gen(function* () {
    const { tx, actor, at, quotas, report } = run;
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
      yield* needCreate(run, `${lacks} tool(s), prompt(s) or resource(s) on provider '${current.name}'`);
      if (haveTools.length + lacking.tools.length > quotas.toolsPerProvider)
        return yield* new ResourceExhausted({
          detail: `provider '${current.name}' would hold ${haveTools.length + lacking.tools.length} tools; a provider may hold at most ${quotas.toolsPerProvider}`,
        });
    }
    const base = (id: string): Base => ({ id, providerId: current.id, createdAt: at, updatedAt: at });
    const toolIds = orderedIds(lacking.tools.length);
    const newTools = lacking.tools.map((tool, j) => toolRowOf(tool, base(toolIds[j]!)));
    const newPrompts = orderedIds(lacking.prompts.length).map((id, j) => promptRowOf(lacking.prompts[j]!, base(id)));
    const newResources = orderedIds(lacking.resources.length).map((id, j) =>
      resourceRowOf(lacking.resources[j]!, base(id)),
    );
    const pathOf = (kind: "tools" | "prompts" | "resources", item: object) =>
      `providers[${i}].${kind}[${(doc[kind] as ReadonlyArray<object>).indexOf(item)}]`;
    yield* insertAll(run, newTools, tx.insertTool, (j) => pathOf("tools", lacking.tools[j]!));
    yield* insertAll(run, newPrompts, tx.insertPrompt, (j) => pathOf("prompts", lacking.prompts[j]!));
    yield* insertAll(run, newResources, tx.insertResource, (j) => pathOf("resources", lacking.resources[j]!));
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
    return { row: current, tools, prompts, resources } satisfies ResolvedProvider;
  });
