import { Effect } from "effect";
import { AlreadyExists, type FieldProblem } from "../errors/domain-errors.js";
import type { PromptRow, ProviderRow, ResourceRow, ServerProviderLink, ToolRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { canSee } from "../use-case/use-case-kit.js";
import { invalid } from "../validation/decode-write.js";
import type { ServerPatch } from "./server-schema.js";
import type { ServerToolSettingsRow } from "./tool-settings-schema.js";

/** The associations of a server. */
export interface Composition {
  readonly providers: ReadonlyArray<ServerProviderLink>;
  readonly resourceIds: ReadonlyArray<string>;
  readonly promptIds: ReadonlyArray<string>;
}

/**
 * Resolves the providers, tools, resources and prompts a server write names. Every id must exist and be
 * visible to the actor, tools must belong to their provider, nothing may repeat; all problems are
 * reported together. `providers[].tools` absent means every tool the provider has now.
 */
export const resolveComposition = (
  tx: StorageTx,
  actor: Actor,
  input: Pick<ServerPatch, "providers" | "resources" | "prompts">,
  stored: Composition,
) =>
  Effect.gen(function* () {
    const problems: Array<FieldProblem> = [];
    let providers = stored.providers;
    // The rows of the tools the write chooses, in order, for the name check (none when providers are kept).
    const chosenTools: Array<ToolRow> = [];
    // The rows of what the write names (for a response built without reading them again).
    const named = {
      providers: [] as Array<ProviderRow>,
      resources: [] as Array<ResourceRow>,
      prompts: [] as Array<PromptRow>,
    };
    if (input.providers !== undefined) {
      // Every provider and tool the write names, read in one round trip (not one per id), with the tenant's
      // variables the tools name: the write's revision shows them (docs/api-rules.md §21), and read here they
      // are not read under the quota lock.
      const refs = input.providers;
      const { providers: providerRows, tools: toolRows } = yield* tx.findProvidersAndTools(
        [...new Set(refs.map((ref) => ref.id))],
        [...new Set(refs.flatMap((ref) => (ref.tools ?? []).map((tool) => tool.id)))],
        actor.tenant,
      );
      const providersById = new Map(providerRows.map((row) => [row.id, row]));
      const toolsById = new Map(toolRows.map((row) => [row.id, row]));
      const links: Array<ServerProviderLink> = [];
      const seenProviders = new Set<string>();
      for (const [i, ref] of input.providers.entries()) {
        const path = `server.providers[${i}]`;
        if (seenProviders.has(ref.id)) {
          problems.push({ path: `${path}.id`, message: `provider '${ref.id}' is listed twice` });
          continue;
        }
        seenProviders.add(ref.id);
        const provider = providersById.get(ref.id);
        if (provider === undefined || !canSee(actor, provider)) {
          problems.push({ path: `${path}.id`, message: `unknown provider '${ref.id}'` });
          continue;
        }
        named.providers.push(provider);
        if (ref.tools === undefined) {
          const all = yield* tx.listTools(ref.id);
          chosenTools.push(...all);
          links.push({ providerId: ref.id, toolIds: all.map((t) => t.id) });
          continue;
        }
        const toolIds: Array<string> = [];
        for (const [j, toolRef] of ref.tools.entries()) {
          const toolPath = `${path}.tools[${j}].id`;
          if (toolIds.includes(toolRef.id)) {
            problems.push({ path: toolPath, message: `tool '${toolRef.id}' is listed twice` });
            continue;
          }
          const tool = toolsById.get(toolRef.id);
          if (tool === undefined || tool.providerId !== ref.id)
            problems.push({ path: toolPath, message: `unknown tool '${toolRef.id}' of provider '${ref.id}'` });
          else {
            toolIds.push(tool.id);
            chosenTools.push(tool);
          }
        }
        links.push({ providerId: ref.id, toolIds });
      }
      providers = links;
    }
    const resourceIds =
      input.resources === undefined
        ? stored.resourceIds
        : yield* resolveChildren(tx, actor, "resource", input.resources, problems, named.resources, (id) =>
            tx.findResource(id),
          );
    const promptIds =
      input.prompts === undefined
        ? stored.promptIds
        : yield* resolveChildren(tx, actor, "prompt", input.prompts, problems, named.prompts, (id) =>
            tx.findPrompt(id),
          );
    if (problems.length > 0) return yield* invalid(problems);
    return { composition: { providers, resourceIds, promptIds } satisfies Composition, chosenTools, named };
  });

const resolveChildren = <Row extends { readonly id: string; readonly providerId: string }>(
  tx: StorageTx,
  actor: Actor,
  kind: "resource" | "prompt",
  refs: ReadonlyArray<{ readonly id: string }>,
  problems: Array<FieldProblem>,
  rows: Array<Row>,
  find: (id: string) => Effect.Effect<Row | undefined>,
) =>
  Effect.gen(function* () {
    const ids: Array<string> = [];
    for (const [i, ref] of refs.entries()) {
      const path = `server.${kind}s[${i}].id`;
      if (ids.includes(ref.id)) {
        problems.push({ path, message: `${kind} '${ref.id}' is listed twice` });
        continue;
      }
      const row = yield* find(ref.id);
      const provider = row === undefined ? undefined : yield* tx.findProvider(row.providerId);
      if (row === undefined || provider === undefined || !canSee(actor, provider))
        problems.push({ path, message: `unknown ${kind} '${ref.id}'` });
      else {
        ids.push(ref.id);
        rows.push(row);
      }
    }
    return ids;
  });

/**
 * The chosen tools of one server become one MCP tool list, so their names must differ: each tool's alias in
 * the server (docs/api-rules.md §20) when `settings` gives one, else its own name.
 */
export const checkDistinctToolNames = (
  tools: ReadonlyArray<ToolRow>,
  settings: ReadonlyArray<ServerToolSettingsRow> = [],
): Effect.Effect<void, AlreadyExists> => {
  const aliases = new Map(settings.filter((s) => s.alias !== "").map((s) => [s.toolId, s.alias]));
  const names = new Map<string, string>();
  for (const tool of tools) {
    const name = aliases.get(tool.id) ?? tool.name;
    const other = names.get(name);
    if (other !== undefined)
      return Effect.fail(
        new AlreadyExists({
          detail: `tools '${other}' and '${tool.id}' are both named '${name}'; a server's tool names must differ`,
        }),
      );
    names.set(name, tool.id);
  }
  return Effect.void;
};
