import { Effect } from "effect";
import { AlreadyExists, type FieldProblem, ResourceExhausted } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import { SecretCipher } from "../secrets/secret-cipher.js";
import type { ServerRow } from "../storage/rows.js";
import type { ReadTx, StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase, type NoInput } from "../use-case/define-use-case.js";
import { lockQuota, now, owned, read, transact } from "../use-case/use-case-kit.js";
import { invalid } from "../validation/decode-write.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import type { GitConnectionRow } from "./git-connection-rows.js";
import {
  DEFAULT_GIT_BASE_URLS,
  GitConnectionCreate,
  type GitConnectionRecord,
  type GitSyncRecord,
} from "./git-connection-schema.js";

/** How many git connections one tenant may have. */
export const GIT_CONNECTIONS_PER_TENANT = 1_000;

/** The wire form of a git connection: everything but the token. */
export const toGitConnectionRecord = (row: GitConnectionRow): GitConnectionRecord => ({
  id: row.id,
  name: row.name,
  kind: row.kind,
  baseURL: row.baseURL,
  username: row.username,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const ownedConnection = (tx: ReadTx, actor: Actor, id: string) =>
  Effect.flatMap(tx.findGitConnection(id), (row) => owned(row, actor, "git connection", id));

/** Input of `createGitConnection`. */
export interface CreateGitConnectionInput {
  readonly gitConnection: GitConnectionCreate;
}

/** Input of `getGitConnection` and `deleteGitConnection`. */
export interface GitConnectionRef {
  readonly gitConnectionId: string;
}

/** Input of `getServerGitSync`. */
export interface ServerGitSyncInput {
  readonly serverId: string;
}

/** Creates a git connection of the actor's tenant; its token is stored encrypted and never returned. */
export const createGitConnection = defineUseCase(
  "createGitConnection",
  (actor: Actor, { gitConnection }: CreateGitConnectionInput) =>
    Effect.gen(function* () {
      const input = yield* validateInput("gitConnection", GitConnectionCreate, gitConnection);
      const baseURL = (input.baseURL ?? DEFAULT_GIT_BASE_URLS[input.kind])?.replace(/\/+$/, "");
      if (baseURL === undefined)
        return yield* invalid([{ path: "gitConnection.baseURL", message: "is required for a GENERIC git host" }]);
      const tokenCipher = yield* Effect.flatMap(SecretCipher, (cipher) => cipher.encrypt(input.token));
      return yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockQuota(tx, "gitConnections", actor.tenant);
          if ((yield* tx.countGitConnections(actor.tenant)) >= GIT_CONNECTIONS_PER_TENANT)
            return yield* new ResourceExhausted({
              detail: `the tenant already has ${GIT_CONNECTIONS_PER_TENANT} git connections`,
            });
          const at = yield* now;
          const row: GitConnectionRow = {
            id: newId(),
            tenant: actor.tenant,
            createdAt: at,
            updatedAt: at,
            name: input.name,
            kind: input.kind,
            baseURL,
            username: input.username ?? "",
            tokenCipher,
          };
          yield* tx
            .insertGitConnection(row)
            .pipe(
              Effect.catchTag("UniqueViolation", (e) =>
                Effect.fail(new AlreadyExists({ detail: `a git connection named '${e.name}' already exists` })),
              ),
            );
          return toGitConnectionRecord(row);
        }),
      );
    }),
);

/** Every git connection of the actor's tenant, in creation order. */
export const listGitConnections = defineUseCase("listGitConnections", (actor: Actor, _input: NoInput) =>
  read((tx) => Effect.map(tx.listGitConnections(actor.tenant), (rows) => rows.map(toGitConnectionRecord))),
);

/** One git connection of the actor's tenant. */
export const getGitConnection = defineUseCase(
  "getGitConnection",
  (actor: Actor, { gitConnectionId: id }: GitConnectionRef) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      return toGitConnectionRecord(yield* read((tx) => ownedConnection(tx, actor, id)));
    }),
);

/**
 * Deletes a git connection of the actor's tenant. The servers using it keep their repository name but
 * stop syncing: their git sync turns OFF with an error naming the deleted connection.
 */
export const deleteGitConnection = defineUseCase(
  "deleteGitConnection",
  (actor: Actor, { gitConnectionId: id }: GitConnectionRef) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      yield* transact((tx) =>
        Effect.gen(function* () {
          const stored = yield* ownedConnection(tx, actor, id);
          const users = yield* tx.serversReferencing({ kind: "gitConnection", id });
          yield* tx.deleteGitConnection(id);
          if (users.length > 0)
            yield* tx.noteGitSyncChanges(
              { serverIds: users.map((s) => s.id), providerIds: [] },
              yield* now,
              `the git connection '${stored.name}' (${id}) was deleted; set another gitConnectionID to sync again`,
            );
        }),
      );
    }),
);

/** Where the git sync of a server of the actor's tenant stands (docs/api-rules.md §17). */
export const getServerGitSync = defineUseCase(
  "getServerGitSync",
  (actor: Actor, { serverId: id }: ServerGitSyncInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      return yield* read((tx) =>
        Effect.gen(function* () {
          const server = yield* Effect.flatMap(tx.findServer(id), (row) => owned(row, actor, "server", id));
          const sync = yield* tx.findGitSync(id);
          const connected = (server.gitConnectionId ?? null) !== null;
          if (sync === undefined)
            return { state: connected ? "PENDING" : "OFF", commit: "", pushedAt: "", error: "" } as GitSyncRecord;
          return {
            state: sync.state,
            commit: sync.commit,
            pushedAt: sync.pushedAt === null ? "" : sync.pushedAt.toISOString(),
            error: sync.error,
          } satisfies GitSyncRecord;
        }),
      );
    }),
);

/** The git fields of a server write: what the patch sets, given what is stored. */
export interface GitWrite {
  readonly gitConnectionID?: string | undefined;
  readonly gitRepoFullName?: string | undefined;
}

/**
 * The git columns a server write sets (only those it names), after checking the result: a connection must
 * be one of the actor's tenant and comes with a repository. Problems are reported together.
 */
export const resolveGitTarget = (tx: StorageTx, actor: Actor, write: GitWrite, stored: ServerRow | undefined) =>
  Effect.gen(function* () {
    if (write.gitConnectionID === undefined && write.gitRepoFullName === undefined)
      return { fields: {}, kind: undefined };
    const connection =
      write.gitConnectionID !== undefined ? write.gitConnectionID || null : (stored?.gitConnectionId ?? null);
    const repo = write.gitRepoFullName ?? stored?.gitRepoFullName ?? "";
    const problems: Array<FieldProblem> = [];
    const found =
      write.gitConnectionID !== undefined && connection !== null ? yield* tx.findGitConnection(connection) : undefined;
    if (
      write.gitConnectionID !== undefined &&
      connection !== null &&
      (found === undefined || found.tenant !== actor.tenant)
    )
      problems.push({ path: "server.gitConnectionID", message: `unknown git connection '${connection}'` });
    if (connection !== null && (repo ?? "") === "")
      problems.push({ path: "server.gitRepoFullName", message: "is required with a gitConnectionID" });
    if (problems.length > 0) return yield* invalid(problems);
    return {
      // Only what changes, so that a write repeating the stored values is no change (and no new version).
      fields: {
        ...(connection === (stored?.gitConnectionId ?? null) ? {} : { gitConnectionId: connection }),
        ...(repo === (stored?.gitRepoFullName ?? "") ? {} : { gitRepoFullName: repo }),
      } satisfies Partial<ServerRow>,
      /** The kind of the connection the write names, when it named one (read for the check above). */
      kind: found?.kind,
    };
  });

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const GIT_CONNECTION_USE_CASES = {
  createGitConnection,
  listGitConnections,
  getGitConnection,
  deleteGitConnection,
  getServerGitSync,
} as const;
