import * as D from "@mcpsm/domain/schemas";
import { type AnyUseCase, USE_CASES as U } from "@mcpsm/domain/use-cases";
import type { DomainError } from "@mcpsm/domain/errors";
import type { Effect, Schema } from "effect";
import { defineOperation, envelope, type ManagementOperation, list } from "./define-operation.js";

// The operations on servers, their members (a provider's tools, resources and prompts) and their tokens.

/** A server and its versioned record: create, read, update, delete and the tenant's list. */
export const SERVER_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "GET",
    path: "/servers",
    useCase: U.listServers,
    summary: "List MCP servers",
    tag: "Servers",
    status: 200,
    response: list("servers", D.ServerRecord),
    input: () => ({}),
    answer: (servers) => ({ body: { servers } }),
  }),
  defineOperation({
    method: "POST",
    path: "/servers",
    useCase: U.createServer,
    summary: "Create an MCP server",
    tag: "Servers",
    status: 201,
    request: envelope("server", D.ServerCreate),
    response: envelope("server", D.ServerRecord),
    etag: true,
    quota: true,
    decodeBody: D.decodeServerCreate,
    input: ({ body }) => ({ server: body }),
    answer: (rec) => ({ body: { server: rec }, location: `/servers/${rec.id}`, version: rec.version }),
  }),
  defineOperation({
    method: "GET",
    path: "/servers/{id}",
    useCase: U.getServer,
    summary: "Get an MCP server",
    tag: "Servers",
    status: 200,
    response: envelope("server", D.ServerRecord),
    etag: true,
    input: ({ params }) => ({ serverId: params.id }),
    answer: (server) => ({ body: { server }, version: server.version }),
    // The 200 answer depends on the caller's tenant and this server's graph only (the record of
    // `findServerGraph`, shown to its owner).
    answerFromServerGraph: (params) => params.id,
  }),
  defineOperation({
    method: "PATCH",
    path: "/servers/{id}",
    useCase: U.updateServer,
    summary: "Update an MCP server",
    tag: "Servers",
    status: 200,
    request: envelope("server", D.ServerPatch),
    response: envelope("server", D.ServerRecord),
    etag: true,
    ifMatch: true,
    decodeBody: D.decodeServerPatch,
    input: ({ params, body, ifMatch }) => ({ serverId: params.id, server: body, expectedVersion: ifMatch }),
    answer: (rec) => ({ body: { server: rec }, version: rec.version }),
  }),
  defineOperation({
    method: "DELETE",
    path: "/servers/{id}",
    useCase: U.deleteServer,
    summary: "Delete an MCP server (and its tokens)",
    tag: "Servers",
    status: 204,
    ifMatch: true,
    input: ({ params, ifMatch }) => ({ serverId: params.id, expectedVersion: ifMatch }),
    answer: () => ({}),
  }),
];

/** The three routes of a server's tools, resources or prompts (list, add one, remove one), which share their shape. */
const serverMemberOperations = (member: {
  readonly segment: "tools" | "resources" | "prompts";
  readonly param: "toolID" | "resourceID" | "promptID";
  readonly key: "tool" | "resource" | "prompt";
  readonly summaries: { readonly list: string; readonly add: string; readonly remove: string };
  readonly link: Schema.Schema.Any;
  readonly record: Schema.Schema.Any;
  readonly decodeLink: (body: unknown) => Effect.Effect<unknown, DomainError>;
  readonly useCases: { readonly [K in "list" | "add" | "remove"]: AnyUseCase };
}): ReadonlyArray<ManagementOperation> => {
  const { segment, param, key, summaries, useCases } = member;
  const base = `/servers/{id}/${segment}` as const;
  const idKey = `${key}Id`;
  return [
    defineOperation({
      method: "GET",
      path: base,
      useCase: useCases.list,
      summary: summaries.list,
      tag: "Server members",
      status: 200,
      response: list(segment, member.record),
      input: ({ params }) => ({ serverId: params.id }),
      answer: (records) => ({ body: { [segment]: records } }),
    }),
    defineOperation({
      method: "POST",
      path: base,
      useCase: useCases.add,
      summary: summaries.add,
      tag: "Server members",
      status: 201,
      request: envelope(key, member.link),
      response: envelope(key, member.record),
      decodeBody: member.decodeLink,
      input: ({ params, body }) => ({ serverId: params.id, [key]: body }),
      answer: (rec, { params }) => {
        const { id } = rec as { readonly id: string };
        return { body: { [key]: rec }, location: `/servers/${params.id}/${segment}/${id}` };
      },
    }),
    defineOperation({
      method: "DELETE",
      path: `${base}/{${param}}`,
      useCase: useCases.remove,
      summary: summaries.remove,
      tag: "Server members",
      status: 204,
      input: ({ params }) => ({ serverId: params.id, [idKey]: (params as Readonly<Record<string, string>>)[param] }),
      answer: () => ({}),
    }),
  ];
};

/** One chosen tool's settings in a server (docs/api-rules.md §20). */
const serverToolSettingsOperations: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "GET",
    path: "/servers/{id}/tools/{toolID}",
    useCase: U.getServerTool,
    summary: "Get a tool of a server with its settings there",
    tag: "Server members",
    status: 200,
    response: envelope("tool", D.ServerToolRecord),
    input: ({ params }) => ({ serverId: params.id, toolId: params.toolID }),
    answer: (tool) => ({ body: { tool } }),
  }),
  defineOperation({
    method: "PATCH",
    path: "/servers/{id}/tools/{toolID}",
    useCase: U.updateServerTool,
    summary: "Change a tool's alias, description, pinned arguments or approval in a server",
    tag: "Server members",
    status: 200,
    request: envelope("tool", D.ServerToolSettingsPatch),
    response: envelope("tool", D.ServerToolRecord),
    decodeBody: D.decodeServerToolSettingsPatch,
    input: ({ params, body }) => ({ serverId: params.id, toolId: params.toolID, tool: body }),
    answer: (tool) => ({ body: { tool } }),
  }),
];

/** Adding and removing a server's tools, resources and prompts one at a time. */
export const SERVER_MEMBER_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  ...serverMemberOperations({
    segment: "tools",
    param: "toolID",
    key: "tool",
    summaries: {
      list: "List the tools of a server",
      add: "Add a provider's tool to a server",
      remove: "Remove a tool from a server",
    },
    link: D.ServerToolLink,
    record: D.ServerToolRecord,
    decodeLink: D.decodeServerToolLink,
    useCases: { list: U.listServerTools, add: U.addServerTool, remove: U.removeServerTool },
  }),
  ...serverToolSettingsOperations,
  ...serverMemberOperations({
    segment: "resources",
    param: "resourceID",
    key: "resource",
    summaries: {
      list: "List the resources of a server",
      add: "Add a resource to a server",
      remove: "Remove a resource from a server",
    },
    link: D.ServerResourceLink,
    record: D.ResourceRecord,
    decodeLink: D.decodeServerResourceLink,
    useCases: { list: U.listServerResources, add: U.addServerResource, remove: U.removeServerResource },
  }),
  ...serverMemberOperations({
    segment: "prompts",
    param: "promptID",
    key: "prompt",
    summaries: {
      list: "List the prompts of a server",
      add: "Add a prompt to a server",
      remove: "Remove a prompt from a server",
    },
    link: D.ServerPromptLink,
    record: D.PromptRecord,
    decodeLink: D.decodeServerPromptLink,
    useCases: { list: U.listServerPrompts, add: U.addServerPrompt, remove: U.removeServerPrompt },
  }),
];

/** A server's tokens: create (its value shown once), list, read, revoke. */
export const SERVER_TOKEN_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "POST",
    path: "/servers/{id}/tokens",
    useCase: U.createServerToken,
    summary: "Create a server token (its value is shown only here)",
    tag: "Server tokens",
    status: 201,
    request: envelope("token", D.ServerTokenCreate),
    response: envelope("token", D.ServerTokenRecord),
    quota: true,
    decodeBody: D.decodeServerTokenCreate,
    input: ({ params, body }) => ({ serverId: params.id, token: body }),
    answer: (rec, { params }) => ({ body: { token: rec }, location: `/servers/${params.id}/tokens/${rec.id}` }),
  }),
  defineOperation({
    method: "GET",
    path: "/servers/{id}/tokens",
    useCase: U.listServerTokens,
    summary: "List a server's tokens (without values)",
    tag: "Server tokens",
    status: 200,
    response: list("tokens", D.ServerTokenRecord),
    input: ({ params }) => ({ serverId: params.id }),
    answer: (tokens) => ({ body: { tokens } }),
  }),
  defineOperation({
    method: "GET",
    path: "/servers/{id}/tokens/{tokenID}",
    useCase: U.getServerToken,
    summary: "Get a server token (without its value)",
    tag: "Server tokens",
    status: 200,
    response: envelope("token", D.ServerTokenRecord),
    input: ({ params }) => ({ serverId: params.id, tokenId: params.tokenID }),
    answer: (token) => ({ body: { token } }),
  }),
  defineOperation({
    method: "DELETE",
    path: "/servers/{id}/tokens/{tokenID}",
    useCase: U.revokeServerToken,
    summary: "Revoke a server token",
    tag: "Server tokens",
    status: 204,
    input: ({ params }) => ({ serverId: params.id, tokenId: params.tokenID }),
    answer: () => ({}),
  }),
];
