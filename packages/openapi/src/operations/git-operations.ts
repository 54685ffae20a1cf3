import * as D from "@mcpsm/domain/schemas";
import { USE_CASES as U } from "@mcpsm/domain/use-cases";
import { defineOperation, envelope, type ManagementOperation, list } from "./define-operation.js";

/** Git connections and a server's git sync (docs/api-rules.md §17). */
export const GIT_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "POST",
    path: "/git-connections",
    useCase: U.createGitConnection,
    summary: "Connect a git host (the token is write-only)",
    tag: "Git connections",
    status: 201,
    request: envelope("gitConnection", D.GitConnectionCreate),
    response: envelope("gitConnection", D.GitConnectionRecord),
    quota: true,
    decodeBody: D.decodeGitConnectionCreate,
    input: ({ body }) => ({ gitConnection: body }),
    answer: (rec) => ({ body: { gitConnection: rec }, location: `/git-connections/${rec.id}` }),
  }),
  defineOperation({
    method: "GET",
    path: "/git-connections",
    useCase: U.listGitConnections,
    summary: "List git connections",
    tag: "Git connections",
    status: 200,
    response: list("gitConnections", D.GitConnectionRecord),
    input: () => ({}),
    answer: (gitConnections) => ({ body: { gitConnections } }),
  }),
  defineOperation({
    method: "GET",
    path: "/git-connections/{id}",
    useCase: U.getGitConnection,
    summary: "Get a git connection",
    tag: "Git connections",
    status: 200,
    response: envelope("gitConnection", D.GitConnectionRecord),
    input: ({ params }) => ({ gitConnectionId: params.id }),
    answer: (gitConnection) => ({ body: { gitConnection } }),
  }),
  defineOperation({
    method: "DELETE",
    path: "/git-connections/{id}",
    useCase: U.deleteGitConnection,
    summary: "Delete a git connection (the servers using it stop syncing)",
    tag: "Git connections",
    status: 204,
    input: ({ params }) => ({ gitConnectionId: params.id }),
    answer: () => ({}),
  }),
  defineOperation({
    method: "GET",
    path: "/servers/{id}/git-sync",
    useCase: U.getServerGitSync,
    summary: "Where the git sync of a server stands",
    tag: "Git connections",
    status: 200,
    response: envelope("gitSync", D.GitSyncRecord),
    input: ({ params }) => ({ serverId: params.id }),
    answer: (gitSync) => ({ body: { gitSync } }),
  }),
];
