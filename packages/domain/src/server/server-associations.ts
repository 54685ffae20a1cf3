import { Effect, type Schema } from "effect";
import { AlreadyExists, NotFound } from "../errors/domain-errors.js";
import { toPromptRecord } from "../prompt/prompt-record.js";
import { toResourceRecord } from "../resource/resource-record.js";
import type { ServerGraph, ServerRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { canSee, lockServer, now, read, transact } from "../use-case/use-case-kit.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { invalid } from "../validation/decode-write.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import { checkDistinctToolNames } from "./server-composition.js";
import { ServerPromptLink, ServerResourceLink, ServerToolLink } from "./server-schema.js";
import { inIdOrder, toServerToolRecord } from "./server-record.js";
import { patchedToolSettings } from "./server-tool-settings.js";
import { toolSettingsOf, withToolSettings } from "./tool-settings-rows.js";
import { DEFAULT_TOOL_SETTINGS } from "./tool-settings-schema.js";
import { ownedServer, ownedServerGraph as graphOf, saveServer } from "./server-use-cases.js";

/** Applies `change` to a server of the actor's tenant as a new revision. */
const changeServer = <E>(
  actor: Actor,
  id: string,
  change: (tx: StorageTx, stored: ServerRow) => Effect.Effect<ServerRow, E>,
) =>
  transact((tx) =>
    Effect.gen(function* () {
      yield* lockServer(tx, id);
      const stored = yield* ownedServer(tx, actor, id);
      const next = yield* change(tx, stored);
      yield* saveServer(tx, stored, { ...next, version: stored.version + 1, updatedAt: yield* now }, false);
    }),
  );

/** Input of the list use cases of a server's tools, resources and prompts. */
export interface ServerMembersInput {
  readonly serverId: string;
}

/** Input of `addServerTool`: the tool to add and its provider. */
export interface AddServerToolInput {
  readonly serverId: string;
  readonly tool: ServerToolLink;
}

/** Input of `removeServerTool`. */
export interface RemoveServerToolInput {
  readonly serverId: string;
  readonly toolId: string;
}

/** Input of `addServerResource`. */
export interface AddServerResourceInput {
  readonly serverId: string;
  readonly resource: ServerResourceLink;
}

/** Input of `removeServerResource`. */
export interface RemoveServerResourceInput {
  readonly serverId: string;
  readonly resourceId: string;
}

/** Input of `addServerPrompt`. */
export interface AddServerPromptInput {
  readonly serverId: string;
  readonly prompt: ServerPromptLink;
}

/** Input of `removeServerPrompt`. */
export interface RemoveServerPromptInput {
  readonly serverId: string;
  readonly promptId: string;
}

/** The chosen tools of a server, in server order. */
export const listServerTools = defineUseCase("listServerTools", (actor: Actor, { serverId: id }: ServerMembersInput) =>
  Effect.gen(function* () {
    yield* validateIds([["id", id]]);
    return yield* read((tx) =>
      Effect.map(graphOf(tx, actor, id), (graph) =>
        inIdOrder(
          graph.server.providers.flatMap((link) => link.toolIds),
          graph.tools,
        ).map((tool) => toServerToolRecord(tool, toolSettingsOf(graph.server, tool.id), false)),
      ),
    );
  }),
);

/** Adds one tool to a server; its provider joins the server if it was not in it. */
export const addServerTool = defineUseCase(
  "addServerTool",
  (actor: Actor, { serverId: id, tool: given }: AddServerToolInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      const link = yield* validateInput("tool", ServerToolLink, given);
      return yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockServer(tx, id);
          // The graph carries the server's chosen tools, which the name check needs.
          const graph = yield* graphOf(tx, actor, id);
          const stored = graph.server;
          const provider = yield* tx.findProvider(link.providerID);
          if (provider === undefined || !canSee(actor, provider))
            return yield* invalid([{ path: "tool.providerID", message: `unknown provider '${link.providerID}'` }]);
          const tool = yield* tx.findTool(link.toolID);
          if (tool === undefined || tool.providerId !== link.providerID)
            return yield* invalid([
              { path: "tool.toolID", message: `unknown tool '${link.toolID}' of provider '${link.providerID}'` },
            ]);
          if (stored.providers.some((p) => p.toolIds.includes(tool.id)))
            return yield* new AlreadyExists({ detail: `tool '${tool.id}' is already part of server '${id}'` });
          const present = stored.providers.some((p) => p.providerId === provider.id);
          const providers = present
            ? stored.providers.map((p) =>
                p.providerId === provider.id ? { ...p, toolIds: [...p.toolIds, tool.id] } : p,
              )
            : [...stored.providers, { providerId: provider.id, toolIds: [tool.id] }];
          const { providerID: _p, toolID: _t, ...patch } = link;
          const settings = yield* patchedToolSettings(tool, DEFAULT_TOOL_SETTINGS, patch, "tool");
          const toolSettings = withToolSettings(stored, tool.id, settings);
          yield* checkDistinctToolNames([...graph.tools, tool], toolSettings);
          // On a database where the tool was deleted after it was read, its foreign key refuses the link: the
          // answer is the one a store that runs one writer at a time gives (the tool is unknown), not a 409.
          yield* saveServer(
            tx,
            stored,
            { ...stored, providers, toolSettings, version: stored.version + 1, updatedAt: yield* now },
            false,
            () =>
              invalid([
                { path: "tool.toolID", message: `unknown tool '${link.toolID}' of provider '${link.providerID}'` },
              ]),
          );
          return toServerToolRecord(tool, settings, false);
        }),
      );
    }),
);

/** Removes one tool from a server (its provider stays). */
export const removeServerTool = defineUseCase(
  "removeServerTool",
  (actor: Actor, { serverId: id, toolId }: RemoveServerToolInput) =>
    Effect.gen(function* () {
      yield* validateIds([
        ["id", id],
        ["toolID", toolId],
      ]);
      yield* changeServer(actor, id, (_tx, stored) =>
        stored.providers.some((p) => p.toolIds.includes(toolId))
          ? Effect.succeed({
              ...stored,
              providers: stored.providers.map((p) => ({ ...p, toolIds: p.toolIds.filter((t) => t !== toolId) })),
            })
          : Effect.fail(new NotFound({ kind: "tool", id: toolId })),
      );
    }),
);

/** The shared shape of the resource and prompt associations, which differ only in names. */
const childAssociation = <Link, Rec>(spec: {
  readonly kind: "resource" | "prompt";
  readonly link: Schema.Schema<Link, Link>;
  readonly childIdOf: (link: Link) => string;
  readonly key: "resourceIds" | "promptIds";
  readonly find: (
    tx: StorageTx,
    id: string,
  ) => Effect.Effect<{ readonly providerId: string; readonly id: string } | undefined>;
  readonly listed: (graph: ServerGraph) => ReadonlyArray<Rec>;
  readonly toRecord: (row: never) => Rec;
}) => ({
  list: (actor: Actor, id: string) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      return yield* read((tx) => Effect.map(graphOf(tx, actor, id), spec.listed));
    }),
  add: (actor: Actor, id: string, given: Link) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      const childId = spec.childIdOf(yield* validateInput(spec.kind, spec.link, given));
      return yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockServer(tx, id);
          const stored = yield* ownedServer(tx, actor, id);
          const row = yield* spec.find(tx, childId);
          const provider = row === undefined ? undefined : yield* tx.findProvider(row.providerId);
          if (row === undefined || provider === undefined || !canSee(actor, provider))
            return yield* invalid([
              { path: `${spec.kind}.${spec.kind}ID`, message: `unknown ${spec.kind} '${childId}'` },
            ]);
          if (stored[spec.key].includes(childId))
            return yield* new AlreadyExists({ detail: `${spec.kind} '${childId}' is already part of server '${id}'` });
          const next = { ...stored, [spec.key]: [...stored[spec.key], childId] };
          yield* saveServer(tx, stored, { ...next, version: stored.version + 1, updatedAt: yield* now }, false);
          return spec.toRecord(row as never);
        }),
      );
    }),
  remove: (actor: Actor, id: string, childId: string) =>
    Effect.gen(function* () {
      yield* validateIds([
        ["id", id],
        [`${spec.kind}ID`, childId],
      ]);
      yield* changeServer(actor, id, (_tx, stored) =>
        stored[spec.key].includes(childId)
          ? Effect.succeed({ ...stored, [spec.key]: stored[spec.key].filter((c) => c !== childId) })
          : Effect.fail(new NotFound({ kind: spec.kind, id: childId })),
      );
    }),
});

/** The steps of a server's resources; the use cases below put each behind its scope. */
const resources = childAssociation({
  kind: "resource",
  link: ServerResourceLink,
  childIdOf: (link) => link.resourceID,
  key: "resourceIds",
  find: (tx, id) => tx.findResource(id),
  listed: (graph) => inIdOrder(graph.server.resourceIds, graph.resources).map(toResourceRecord),
  toRecord: toResourceRecord,
});

/** The steps of a server's prompts. */
const prompts = childAssociation({
  kind: "prompt",
  link: ServerPromptLink,
  childIdOf: (link) => link.promptID,
  key: "promptIds",
  find: (tx, id) => tx.findPrompt(id),
  listed: (graph) => inIdOrder(graph.server.promptIds, graph.prompts).map(toPromptRecord),
  toRecord: toPromptRecord,
});

/** The resources of a server, in server order. */
export const listServerResources = defineUseCase("listServerResources", (actor: Actor, input: ServerMembersInput) =>
  resources.list(actor, input.serverId),
);

/** Adds one resource (of a provider the actor can see) to a server. */
export const addServerResource = defineUseCase("addServerResource", (actor: Actor, input: AddServerResourceInput) =>
  resources.add(actor, input.serverId, input.resource),
);

/** Removes one resource from a server. */
export const removeServerResource = defineUseCase(
  "removeServerResource",
  (actor: Actor, input: RemoveServerResourceInput) => resources.remove(actor, input.serverId, input.resourceId),
);

/** The prompts of a server, in server order. */
export const listServerPrompts = defineUseCase("listServerPrompts", (actor: Actor, input: ServerMembersInput) =>
  prompts.list(actor, input.serverId),
);

/** Adds one prompt (of a provider the actor can see) to a server. */
export const addServerPrompt = defineUseCase("addServerPrompt", (actor: Actor, input: AddServerPromptInput) =>
  prompts.add(actor, input.serverId, input.prompt),
);

/** Removes one prompt from a server. */
export const removeServerPrompt = defineUseCase("removeServerPrompt", (actor: Actor, input: RemoveServerPromptInput) =>
  prompts.remove(actor, input.serverId, input.promptId),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const SERVER_MEMBER_USE_CASES = {
  listServerTools,
  addServerTool,
  removeServerTool,
  listServerResources,
  addServerResource,
  removeServerResource,
  listServerPrompts,
  addServerPrompt,
  removeServerPrompt,
} as const;
