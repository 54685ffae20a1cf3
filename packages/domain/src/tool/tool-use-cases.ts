import { Effect } from "effect";
import { AlreadyExists, type FieldProblem, ResourceExhausted } from "../errors/domain-errors.js";
import type { ToolRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import { Quotas } from "../tenancy/quotas.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { providerChildUseCases } from "../use-case/provider-child-use-cases.js";
import { invalid } from "../validation/decode-write.js";
import type { JsonObject } from "../validation/text.js";
import { oauth2HeaderProblems } from "../provider/oauth2-credentials.js";
import { responseFilterProblems } from "../response-shaping/response-shaping-port.js";
import { type ListProviderToolsInput, listProviderToolsPage } from "./tool-listing.js";
import { toToolRecord } from "./tool-record.js";
import { DEFAULT_REQ_CONTENT_TYPE } from "./tool-body-fields.js";
import { pathPlaceholders, ToolCreate, ToolPatch } from "./tool-schema.js";

const schemaOrNull = (schema: JsonObject | null | undefined, stored: JsonObject | null): JsonObject | null =>
  schema === undefined ? stored : schema === null || Object.keys(schema).length === 0 ? null : schema;

/** Fails with every problem found, if any. */
const rejectProblems = <R>(problems: Effect.Effect<ReadonlyArray<FieldProblem>, never, R>) =>
  Effect.flatMap(problems, (found) => (found.length > 0 ? Effect.fail(invalid(found)) : Effect.void));

/** Every `{placeholder}` of the path must be a required property of the path arguments schema. */
const placeholderProblems = (row: ToolRow): ReadonlyArray<FieldProblem> => {
  const required = row.pathArgsJSONSchema?.required;
  const requiredNames = new Set(Array.isArray(required) ? required.filter((n) => typeof n === "string") : []);
  const properties = row.pathArgsJSONSchema?.properties;
  const declared = typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
  return pathPlaceholders(row.path)
    .filter((name) => !requiredNames.has(name) || !declared.includes(name))
    .map((name) => ({
      path: "tool.pathArgsJSONSchema",
      message: `placeholder {${name}} of the path must be a required property of pathArgsJSONSchema`,
    }));
};

/** A renamed tool must not collide with another chosen tool of a server that includes it. */
const serverNameClash = (tx: StorageTx, row: ToolRow) =>
  Effect.gen(function* () {
    for (const user of yield* tx.serversReferencing({ kind: "tool", id: row.id })) {
      const graph = yield* tx.findServerGraph(user.id);
      if (graph?.tools.some((tool) => tool.id !== row.id && tool.name === row.name))
        return yield* new AlreadyExists({
          detail: `server '${user.id}' already has a tool named '${row.name}'`,
        });
    }
  });

const checkTool = (tx: StorageTx, row: ToolRow, previous: ToolRow | undefined) =>
  Effect.gen(function* () {
    const provider = yield* tx.findProvider(row.providerId);
    const problems = [
      ...placeholderProblems(row),
      ...oauth2HeaderProblems(provider?.oauth2Config ?? null, [row], "tool.headers"),
    ];
    if (problems.length > 0) return yield* invalid(problems);
    if (previous === undefined) {
      const quotas = yield* Quotas;
      if ((yield* tx.listTools(row.providerId)).length >= quotas.toolsPerProvider)
        return yield* new ResourceExhausted({ detail: `the provider already has ${quotas.toolsPerProvider} tools` });
    } else if (previous.name !== row.name) yield* serverNameClash(tx, row);
  });

export type { ListProviderToolsInput };

/** The steps of a provider's tools; the use cases below put each behind its scope. */
const tools = providerChildUseCases({
  kind: "tool",
  create: ToolCreate,
  patch: ToolPatch,
  reads: (tx) => ({ find: tx.findTool, list: tx.listTools }),
  store: (tx) => ({ insert: tx.insertTool, update: tx.updateTool, remove: tx.deleteTool }),
  build: (input, base): ToolRow => ({
    ...base,
    method: input.method,
    path: input.path,
    name: input.name,
    title: input.title ?? "",
    description: input.description ?? "",
    pathArgsJSONSchema: schemaOrNull(input.pathArgsJSONSchema, null),
    queryArgsJSONSchema: schemaOrNull(input.queryArgsJSONSchema, null),
    reqBodyJSONSchema: schemaOrNull(input.reqBodyJSONSchema, null),
    reqContentType: input.reqContentType ?? DEFAULT_REQ_CONTENT_TYPE,
    reqBodyEncoding: input.reqBodyEncoding ?? {},
    respBodyJSONSchema: schemaOrNull(input.respBodyJSONSchema, null),
    outputSchemaMode: input.outputSchemaMode ?? "LENIENT",
    responseFilter: input.responseFilter ?? null,
    headers: input.headers ?? [],
    oauth2Scopes: input.oauth2Scopes ?? [],
    imported: false,
    operationPath: "",
    longRunning: false,
  }),
  merge: (stored, patch): ToolRow => ({
    ...stored,
    method: patch.method ?? stored.method,
    path: patch.path ?? stored.path,
    name: patch.name ?? stored.name,
    title: patch.title ?? stored.title,
    description: patch.description ?? stored.description,
    pathArgsJSONSchema: schemaOrNull(patch.pathArgsJSONSchema, stored.pathArgsJSONSchema),
    queryArgsJSONSchema: schemaOrNull(patch.queryArgsJSONSchema, stored.queryArgsJSONSchema),
    reqBodyJSONSchema: schemaOrNull(patch.reqBodyJSONSchema, stored.reqBodyJSONSchema),
    reqContentType: patch.reqContentType ?? stored.reqContentType,
    reqBodyEncoding: patch.reqBodyEncoding ?? stored.reqBodyEncoding,
    respBodyJSONSchema: schemaOrNull(patch.respBodyJSONSchema, stored.respBodyJSONSchema),
    outputSchemaMode: patch.outputSchemaMode ?? stored.outputSchemaMode,
    responseFilter: patch.responseFilter === undefined ? stored.responseFilter : patch.responseFilter,
    headers: patch.headers ?? stored.headers,
    oauth2Scopes: patch.oauth2Scopes ?? stored.oauth2Scopes,
  }),
  toRecord: toToolRecord,
  check: checkTool,
  // Compiling a jq filter takes a trip to the sandbox thread: done before the transaction, not inside it.
  inspect: (input) => rejectProblems(responseFilterProblems(input.responseFilter, "tool.responseFilter")),
});

/** Input of `createProviderTool`: the tool's fields. */
export interface CreateProviderToolInput {
  readonly providerId: string;
  readonly tool: ToolCreate;
}

/** Input of `getProviderTool` and `deleteProviderTool`. */
export interface ProviderToolRef {
  readonly providerId: string;
  readonly toolId: string;
}

/** Input of `updateProviderTool`: the fields to change. */
export interface UpdateProviderToolInput extends ProviderToolRef {
  readonly tool: ToolPatch;
}

/** The tools of a provider the actor can see: every one, or a page of them (`limit`, `token`, `q`). */
export const listProviderTools = defineUseCase("listProviderTools", (actor: Actor, input: ListProviderToolsInput) =>
  listProviderToolsPage(actor, input),
);

/** Adds a tool to a provider of the actor's tenant (a new version of the provider). */
export const createProviderTool = defineUseCase("createProviderTool", (actor: Actor, input: CreateProviderToolInput) =>
  tools.create(actor, input.providerId, input.tool),
);

/** One tool of a provider the actor can see. */
export const getProviderTool = defineUseCase("getProviderTool", (actor: Actor, input: ProviderToolRef) =>
  tools.get(actor, input.providerId, input.toolId),
);

/** Changes a tool of a provider of the actor's tenant (a new version of the provider). */
export const updateProviderTool = defineUseCase("updateProviderTool", (actor: Actor, input: UpdateProviderToolInput) =>
  tools.update(actor, input.providerId, input.toolId, input.tool),
);

/** Deletes a tool of a provider of the actor's tenant, unless a server uses it. */
export const deleteProviderTool = defineUseCase("deleteProviderTool", (actor: Actor, input: ProviderToolRef) =>
  tools.remove(actor, input.providerId, input.toolId),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const PROVIDER_TOOL_USE_CASES = {
  listProviderTools,
  createProviderTool,
  getProviderTool,
  updateProviderTool,
  deleteProviderTool,
} as const;
