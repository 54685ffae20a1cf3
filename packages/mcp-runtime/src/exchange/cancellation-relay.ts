import type { RequestId } from "@modelcontextprotocol/server";

// A 2025-era `notifications/cancelled` arrives in an HTTP request of its own and, the endpoint being
// stateless (no session pins a client to an instance), may reach another instance than the one running the
// call. A relay carries such a cancellation to every instance; the one running the call aborts it. Only the
// caller key (server id and the digest of the bearer token, never the token) and the request id travel.

/** A cancellation as the relay carries it. */
export interface RelayedCancellation {
  /** The caller key of the call (server id and token digest). */
  readonly caller: string;
  readonly id: RequestId;
  readonly reason?: string | undefined;
}

/** Carries cancellations between the instances of the service (e.g. Redis pub/sub). */
export interface CancellationRelay {
  /** Sends a cancellation no call of this instance matched to every instance (best effort). */
  readonly publish: (cancellation: RelayedCancellation) => void;
  /** Calls `handler` with every cancellation published by any instance; answers the unsubscribe. */
  readonly subscribe: (handler: (cancellation: RelayedCancellation) => void) => () => void;
}
