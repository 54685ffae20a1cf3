import * as D from "@mcpsm/domain/schemas";
import { type AnyUseCase, USE_CASES as U } from "@mcpsm/domain/use-cases";
import type { DomainError } from "@mcpsm/domain/errors";
import { type Effect, Schema } from "effect";
import { defineOperation, envelope, type ManagementOperation, list } from "./define-operation.js";
import type { Tag } from "./management-route.js";

/** The five operations of a provider's tools, prompts or resources, which share their shape. */
const providerChildOperations = (child: {
  readonly segment: "tools" | "prompts" | "resources";
  readonly param: "toolID" | "promptID" | "resourceID";
  readonly key: "tool" | "prompt" | "resource";
  readonly tag: Tag;
  readonly create: Schema.Schema.Any;
  readonly patch: Schema.Schema.Any;
  readonly record: Schema.Schema.Any;
  readonly decodeCreate: (body: unknown) => Effect.Effect<unknown, DomainError>;
  readonly decodePatch: (body: unknown) => Effect.Effect<unknown, DomainError>;
  readonly quota?: boolean;
  /** The list's own declaration (a paged one), instead of the plain list of every record. */
  readonly listOperation?: ManagementOperation;
  readonly useCases: { readonly [K in "list" | "create" | "get" | "update" | "remove"]: AnyUseCase };
}): ReadonlyArray<ManagementOperation> => {
  const { segment, param, key, tag, useCases } = child;
  const noun = key;
  const base = `/providers/{id}/${segment}` as const;
  const path = `${base}/{${param}}` as const;
  const one = (schema: Schema.Schema.Any) => envelope(key, schema);
  /** The parent's id and the child's, under the use case's names (`providerId`, `toolId`). */
  const ids = (params: Readonly<Record<string, string>>) => ({ providerId: params.id, [`${key}Id`]: params[param] });
  return [
    child.listOperation ??
      defineOperation({
        method: "GET",
        path: base,
        useCase: useCases.list,
        summary: `List a provider's ${noun}s`,
        tag,
        status: 200,
        response: list(segment, child.record),
        input: ({ params }) => ({ providerId: params.id }),
        answer: (records) => ({ body: { [segment]: records } }),
      }),
    defineOperation({
      method: "POST",
      path: base,
      useCase: useCases.create,
      summary: `Create a ${noun} of a provider`,
      tag,
      status: 201,
      request: one(child.create),
      response: one(child.record),
      ...(child.quota ? { quota: true } : {}),
      decodeBody: child.decodeCreate,
      input: ({ params, body }) => ({ providerId: params.id, [key]: body }),
      answer: (rec, { params }) => {
        const { id } = rec as { readonly id: string };
        return { body: { [key]: rec }, location: `/providers/${params.id}/${segment}/${id}` };
      },
    }),
    defineOperation({
      method: "GET",
      path,
      useCase: useCases.get,
      summary: `Get a ${noun}`,
      tag,
      status: 200,
      response: one(child.record),
      input: ({ params }) => ids(params),
      answer: (rec) => ({ body: { [key]: rec } }),
    }),
    defineOperation({
      method: "PATCH",
      path,
      useCase: useCases.update,
      summary: `Update a ${noun}`,
      tag,
      status: 200,
      request: one(child.patch),
      response: one(child.record),
      decodeBody: child.decodePatch,
      input: ({ params, body }) => ({ ...ids(params), [key]: body }),
      answer: (rec) => ({ body: { [key]: rec } }),
    }),
    defineOperation({
      method: "DELETE",
      path,
      useCase: useCases.remove,
      summary: `Delete a ${noun}`,
      tag,
      status: 204,
      input: ({ params }) => ids(params),
      answer: () => ({}),
    }),
  ];
};

/** A provider's tools, prompts and resources. */
export const PROVIDER_CHILD_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  ...providerChildOperations({
    segment: "tools",
    param: "toolID",
    key: "tool",
    tag: "Provider tools",
    create: D.ToolCreate,
    patch: D.ToolPatch,
    record: D.ToolRecord,
    decodeCreate: D.decodeToolCreate,
    decodePatch: D.decodeToolPatch,
    quota: true,
    // Every tool, or a page of them (docs/api-rules.md §9): the paging of GET /providers, opt-in by `limit`.
    listOperation: defineOperation({
      method: "GET",
      path: "/providers/{id}/tools",
      useCase: U.listProviderTools,
      summary: "List a provider's tools: every one, or one page at a time with `limit`",
      tag: "Provider tools",
      status: 200,
      query: D.ProviderToolListParameters,
      response: Schema.Struct({
        tools: Schema.Array(D.ToolRecord),
        matchCount: Schema.Int.annotations({ description: "tools matching `q` over all pages" }),
        nextToken: Schema.String.annotations({ description: 'pass as `token` for the next page; "" on the last page' }),
      }).annotations({ identifier: "ProviderToolPage" }),
      decodeQuery: D.decodeProviderToolListQuery,
      input: ({ params, query }) => ({ ...query, providerId: params.id }),
      answer: (page) => ({ body: page }),
    }),
    useCases: {
      list: U.listProviderTools,
      create: U.createProviderTool,
      get: U.getProviderTool,
      update: U.updateProviderTool,
      remove: U.deleteProviderTool,
    },
  }),
  // docs/api-rules.md §19: a sample answer shaped as a call of the tool would shape it; nothing stored.
  defineOperation({
    method: "POST",
    path: "/providers/{id}/tools/{toolID}/shape-preview",
    useCase: U.previewToolShape,
    summary: "Shape a sample answer with the tool's (or a given) response filter and token limit, and count its tokens",
    tag: "Provider tools",
    status: 200,
    request: D.ShapePreviewBody,
    response: D.ShapePreviewResult,
    decodeBody: D.decodeShapePreviewBody,
    input: ({ params, body }) => ({ providerId: params.id, toolId: params.toolID, preview: body }),
    answer: (preview) => ({ body: preview }),
  }),
  ...providerChildOperations({
    segment: "prompts",
    param: "promptID",
    key: "prompt",
    tag: "Provider prompts",
    create: D.PromptCreate,
    patch: D.PromptPatch,
    record: D.PromptRecord,
    decodeCreate: D.decodePromptCreate,
    decodePatch: D.decodePromptPatch,
    useCases: {
      list: U.listProviderPrompts,
      create: U.createProviderPrompt,
      get: U.getProviderPrompt,
      update: U.updateProviderPrompt,
      remove: U.deleteProviderPrompt,
    },
  }),
  ...providerChildOperations({
    segment: "resources",
    param: "resourceID",
    key: "resource",
    tag: "Provider resources",
    create: D.ResourceCreate,
    patch: D.ResourcePatch,
    record: D.ResourceRecord,
    decodeCreate: D.decodeResourceCreate,
    decodePatch: D.decodeResourcePatch,
    useCases: {
      list: U.listProviderResources,
      create: U.createProviderResource,
      get: U.getProviderResource,
      update: U.updateProviderResource,
      remove: U.deleteProviderResource,
    },
  }),
];
