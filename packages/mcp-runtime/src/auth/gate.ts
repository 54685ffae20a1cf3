import { hash } from "node:crypto";
import { NotFound } from "@mcpsm/domain/errors";
import { mcpServerForCaller } from "@mcpsm/domain/mcp";
import { isId } from "@mcpsm/domain/schemas";
import { Storage } from "@mcpsm/domain/storage";
import type { EffectRunner } from "@mcpsm/upstream-http";
import { Effect, Either, Exit } from "effect";
import type { CompiledServerCache } from "../compiled-cache.js";
import type { CompiledServer } from "../compiled-server.js";
import type { McpFailure } from "../error-mapping.js";
import type { Admitted } from "../exchange/fast-lane.js";
import { AdmissionMemo } from "./admission-memo.js";
import { type Authenticate, serverTokenOf } from "./authenticate.js";
import type { McpAuthentication } from "./mcp-authentication.js";
import { serverTokenGrant } from "./server-token-auth.js";

/**
 * Who a cancellation may come from: the same credential on the same server (the token's digest, so that the
 * registry holds no token). Stateless clients have no session to tell apart. Also the key under which the
 * gate keeps a server-token request's answer.
 */
export const callerKey = (serverId: string, authorization: string | null) =>
  `${serverId}:${hash("sha256", authorization ?? "", "base64url")}`;

/** The gates of an MCP exchange, for the SDK path and the fast lane alike. */
export interface Gate {
  /**
   * Authentication, the server as of now, the domain's access rule: what the caller may use, with its
   * `callerKey`, or why not.
   */
  readonly admit: (authorization: string | null, serverId: string) => Promise<Exit.Exit<Admitted, McpFailure>>;
  /** Answers replayed from the memo (tests and diagnostics). */
  readonly replays: () => number;
  /** Requests admitted or refused, replayed or not (metrics: those not replayed read the store). */
  readonly admissions: () => number;
}

/**
 * What the memo keeps of an admission: the compiled server weakly, so that a server the compiled-server cache
 * let go of (its budget no longer counts it) is not held on by up to MCP_ADMISSION_MEMO_ENTRIES kept answers.
 */
interface KeptAdmission {
  readonly auth: McpAuthentication;
  readonly compiled: WeakRef<CompiledServer>;
  readonly caller: string;
}

/** The domain's access rule applied to an authenticated caller and the server as of now. */
const served = (
  auth: McpAuthentication,
  compiled: CompiledServer | undefined,
  serverId: string,
  caller: string,
): Exit.Exit<Admitted, McpFailure> => {
  const allowed = mcpServerForCaller(auth.caller, serverId, compiled);
  return Either.isLeft(allowed) ? Exit.fail(allowed.left) : Exit.succeed({ auth, compiled: allowed.right, caller });
};

/**
 * The gate. A server token and the server's revision are read in one run of the effect runtime, and the
 * admission is kept (admission-memo.ts) while the store's change stamp says nothing was committed since: the
 * next request with the same token on the same server is answered without an effect run, or a second
 * SHA-256 of the token. Other credentials (OAuth access tokens) are checked on every request.
 */
export const mcpGate = (
  runner: EffectRunner,
  cache: CompiledServerCache,
  authenticate: Authenticate,
  memoEntries?: number,
): Gate => {
  const memo = new AdmissionMemo<KeptAdmission>(memoEntries);
  let admissions = 0;
  // The store's change stamp, once the runner hands it over (until then, and without one, nothing is kept).
  void runner.runPromiseExit(Effect.map(Storage, (storage) => storage.changeStamp)).then(
    (exit) => {
      if (Exit.isSuccess(exit) && exit.value !== undefined) memo.useStamp(exit.value);
    },
    () => undefined,
  );

  const stillKept = (kept: KeptAdmission) => {
    const compiled = kept.compiled.deref();
    return compiled !== undefined && cache.keeps(compiled);
  };

  const admit = async (authorization: string | null, serverId: string): Promise<Exit.Exit<Admitted, McpFailure>> => {
    admissions++;
    // A kept answer first: it exists only for a server id and a server token the rules below accepted.
    const caller = authorization === null ? undefined : callerKey(serverId, authorization);
    const kept = caller === undefined ? undefined : memo.replay(caller, stillKept);
    // `stillKept` found the compiled server a moment ago, in this same synchronous run: it is still there.
    if (kept !== undefined)
      return Exit.succeed({ auth: kept.auth, compiled: kept.compiled.deref() as CompiledServer, caller: kept.caller });
    if (!isId(serverId)) return Exit.fail(new NotFound({ kind: "server", id: serverId }));
    const token = authorization === null ? undefined : serverTokenOf(authorization);
    if (token === undefined || caller === undefined) {
      const auth = await authenticate(authorization, serverId);
      if (Exit.isFailure(auth)) return Exit.failCause(auth.cause);
      const current = await cache.current(serverId);
      if (Exit.isFailure(current)) return Exit.failCause(current.cause);
      return served(auth.value, current.value, serverId, caller ?? callerKey(serverId, authorization));
    }
    const stamp = memo.stamp();
    const gate = await cache.currentAfter(serverId, serverTokenGrant(serverId, token));
    if (Exit.isFailure(gate)) return Exit.failCause(gate.cause);
    const [grant, compiled] = gate.value;
    const admitted = served(grant.auth, compiled, serverId, caller);
    if (Exit.isSuccess(admitted)) {
      const { auth, compiled: kept } = admitted.value;
      memo.keep(caller, stamp, { auth, compiled: new WeakRef(kept), caller }, grant.expiresAt);
    }
    return admitted;
  };

  return { admit, replays: () => memo.replays, admissions: () => admissions };
};
