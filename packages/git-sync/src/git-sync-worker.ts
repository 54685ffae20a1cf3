import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type { SecretCipher } from "@mcpsm/domain/use-cases";
import { exportDocumentOf } from "@mcpsm/domain/use-cases";
import type { GitSyncOutcome, GitSyncRow, Storage } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Dispatcher } from "undici";
import { commitMessage } from "./commit-message.js";
import { pathSegment } from "./folder-names.js";
import { DEFAULT_GIT_HTTP_LIMITS, type GitHttpLimits, gitHttpClient } from "./git-http-client.js";
import { pushFolder } from "./push-folder.js";
import { PushFailure, pushFailureOf } from "./push-failure.js";
import { folderFiles } from "./repository-layout.js";

// The background worker of the git outbox (docs/api-rules.md §17). Every `pollMs` it claims the entries
// that are due and quiet (no change for `debounceMs`, or pending for `maxDelayMs`: a burst of changes
// becomes one commit), leasing them to this instance so no other instance pushes them; for each it reads
// the server as it stands now, pushes its folder and settles the entry under the lease. A failure is
// recorded with a clear error and retried with exponential backoff; the write that caused it never knew.

/** How the worker runs. */
export interface GitSyncSettings {
  /** Wait this long after a server's last change before pushing (coalesces bursts). */
  readonly debounceMs: number;
  /** Push anyway once a change has waited this long, even if changes keep coming. */
  readonly maxDelayMs: number;
  /** How often the outbox is polled for due entries. */
  readonly pollMs: number;
  /** How long a claimed entry stays this instance's (longer than a push can take). */
  readonly leaseMs: number;
  /** The first retry waits this long, each next one twice as long, up to `maxBackoffMs`. */
  readonly baseBackoffMs: number;
  readonly maxBackoffMs: number;
  /** Entries pushed at once by this instance. */
  readonly concurrency: number;
}

export const DEFAULT_GIT_SYNC_SETTINGS: GitSyncSettings = {
  debounceMs: 2_000,
  maxDelayMs: 30_000,
  pollMs: 1_000,
  leaseMs: 5 * 60_000,
  baseBackoffMs: 5_000,
  maxBackoffMs: 15 * 60_000,
  concurrency: 4,
};

/** How one push ended, for metrics. */
export interface GitPushReport {
  readonly result: "pushed" | "unchanged" | "failed";
  /** For failures: auth, not_found, unreachable, rejected, too_large, other. */
  readonly reason?: string | undefined;
}

/** A problem the operator should see (never a user's error, never a secret). */
export interface GitSyncLogger {
  readonly warn: (fields: Record<string, unknown>, message: string) => void;
  readonly error: (fields: Record<string, unknown>, message: string) => void;
}

export interface GitSyncWorkerOptions {
  readonly storage: typeof Storage.Service;
  readonly cipher: typeof SecretCipher.Service;
  /** Every connection to a git host goes through it (the outbound address policy). */
  readonly dispatcher: Dispatcher;
  readonly settings?: Partial<GitSyncSettings> | undefined;
  readonly httpLimits?: GitHttpLimits | undefined;
  /** This instance's name in leases; random by default. */
  readonly owner?: string | undefined;
  readonly onPush?: ((report: GitPushReport) => void) | undefined;
  readonly logger?: GitSyncLogger | undefined;
  /** The current time (tests may move it). */
  readonly now?: (() => Date) | undefined;
}

/** A running worker. */
export interface GitSyncWorker {
  /** Claims and pushes what is due now; resolves with how many entries it handled. */
  readonly runOnce: () => Promise<number>;
  /** Stops polling and waits for the pushes in flight. */
  readonly stop: () => Promise<void>;
}

const AUTHOR = { name: "MCP Server Manager", email: "mcp-server-manager@users.noreply.localhost" };

/** What one outbox entry needs pushed, read in one storage round trip set. */
const readTarget = (storage: typeof Storage.Service, serverId: string) =>
  storage.read((tx) =>
    Effect.gen(function* () {
      const graph = yield* tx.findServerGraph(serverId);
      if (graph === undefined) return undefined;
      const connectionId = graph.server.gitConnectionId ?? null;
      const connection = connectionId === null ? undefined : yield* tx.findGitConnection(connectionId);
      if (connection === undefined) return undefined;
      return { graph, connection, document: yield* exportDocumentOf(tx, graph) };
    }),
  );

/** Starts the worker; it polls until `stop`. */
export const startGitSyncWorker = (options: GitSyncWorkerOptions): GitSyncWorker => {
  const settings = { ...DEFAULT_GIT_SYNC_SETTINGS, ...options.settings };
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const now = options.now ?? (() => new Date());
  const http = gitHttpClient(options.dispatcher, options.httpLimits ?? DEFAULT_GIT_HTTP_LIMITS);
  const workRoot = join(tmpdir(), "mcpsm-git-sync");
  const { storage } = options;
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect);

  const backoff = (attempts: number) => {
    const base = Math.min(settings.maxBackoffMs, settings.baseBackoffMs * 2 ** Math.min(attempts, 20));
    // ±20% jitter, so instances retrying a host that was down do not come back in step.
    return Math.round(base * (0.8 + Math.random() * 0.4));
  };

  const settle = (row: GitSyncRow, outcome: GitSyncOutcome) =>
    run(storage.transaction((tx) => tx.settleGitSync(row.serverId, owner, outcome)));

  const push = async (row: GitSyncRow): Promise<void> => {
    let token = "";
    let where = `server ${row.serverId}`;
    try {
      const target = await run(readTarget(storage, row.serverId));
      if (target === undefined) throw new PushFailure("the server has no git connection", "other");
      const { graph, connection, document } = target;
      const repo = graph.server.gitRepoFullName ?? "";
      const url = `${connection.baseURL}/${repo}.git`;
      where = `${connection.baseURL}/${repo}`;
      if (!options.cipher.knowsKeyOf(connection.tokenCipher))
        throw new PushFailure(
          "the git connection's token is encrypted under a key this service was not given; create the connection again",
          "other",
        );
      token = await run(options.cipher.decrypt(connection.tokenCipher));
      const folder = pathSegment(graph.server.name);
      const previousFolder = row.pushedRepo === url && row.pushedFolder !== folder ? row.pushedFolder : undefined;
      await mkdir(workRoot, { recursive: true });
      const result = await pushFolder({
        url,
        username: connection.username || defaultUsername(connection.kind),
        token,
        folder,
        previousFolder: previousFolder === "" ? undefined : previousFolder,
        files: folderFiles(document),
        message: (changes) => commitMessage(graph.server.name, graph.server.version, changes, row.commit === ""),
        author: AUTHOR,
        http,
        workRoot,
      });
      await settle(row, {
        kind: "pushed",
        seq: row.changeSeq,
        commit: result.commit,
        at: now(),
        repo: url,
        folder,
      });
      options.onPush?.({ result: result.changed ? "pushed" : "unchanged" });
    } catch (error) {
      const failure = pushFailureOf(error, where, token);
      if (failure.reason === "other" && !(error instanceof PushFailure))
        options.logger?.warn({ serverId: row.serverId, err: failure.message }, "git push failed unexpectedly");
      await settle(row, {
        kind: "failed",
        error: failure.message,
        retryAt: new Date(now().getTime() + backoff(row.attempts)),
      }).catch((e: unknown) =>
        options.logger?.error({ serverId: row.serverId, err: String(e) }, "could not record a failed git push"),
      );
      options.onPush?.({ result: "failed", reason: failure.reason });
    }
  };

  const runOnce = async (): Promise<number> => {
    const at = now();
    const claim = {
      owner,
      now: at,
      leaseUntil: new Date(at.getTime() + settings.leaseMs),
      quietSince: new Date(at.getTime() - settings.debounceMs),
      pendingBefore: new Date(at.getTime() - settings.maxDelayMs),
      limit: settings.concurrency,
    };
    // A read first: a committed transaction tells every instance's read cache to drop what it holds, so an
    // idle poll (nearly all of them) must not open one. Entries that stop being due meanwhile are harmless:
    // the claim then leases nothing.
    if (!(await run(storage.read((tx) => tx.hasDueGitSyncs(claim))))) return 0;
    const claimed = await run(storage.transaction((tx) => tx.claimGitSyncs(claim)));
    await Promise.all(claimed.map(push));
    return claimed.length;
  };

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    inFlight = runOnce()
      .catch((e: unknown) => options.logger?.warn({ err: String(e) }, "git sync could not read its outbox"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, settings.pollMs);
      });
  };
  timer = setTimeout(tick, settings.pollMs);
  return {
    runOnce,
    stop: async () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await inFlight;
    },
  };
};

/** The HTTP user name a token goes with when the connection names none. */
const defaultUsername = (kind: string) => (kind === "GITHUB" ? "x-access-token" : kind === "GITLAB" ? "oauth2" : "git");
