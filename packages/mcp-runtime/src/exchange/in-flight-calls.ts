import type { RequestId } from "@modelcontextprotocol/server";
import type { CancellationRelay } from "./cancellation-relay.js";

// Upstream calls still running, so that a 2025-era client's `notifications/cancelled` — which arrives in an
// HTTP request of its own, answered by another (stateless) server instance — can abort the call it names.
// Calls are keyed by the caller as well as the JSON-RPC id: one caller can never cancel another's call.
// (2026-07-28 clients cancel by closing the request's own stream, which aborts the call directly.) The
// registry is per process; with a relay (cancellation-relay.ts) a cancellation that matches no call here is
// passed to every instance, and the one running the call aborts it. Without one, a cancellation reaching
// another instance is a no-op and the call still ends at its timeout or when the client disconnects.

/** The calls of this process that a cancellation may still abort. */
export class InFlightCalls {
  readonly #calls = new Map<string, AbortController>();
  readonly #relay: CancellationRelay | undefined;
  readonly #unsubscribe: () => void;

  constructor(relay?: CancellationRelay) {
    this.#relay = relay;
    this.#unsubscribe = relay?.subscribe((c) => void this.#abort(c.caller, c.id, c.reason)) ?? (() => {});
  }

  /** Stops listening to the relay. */
  close(): void {
    this.#unsubscribe();
  }

  get size(): number {
    return this.#calls.size;
  }

  /**
   * Registers a call of `caller` under JSON-RPC `id`: the returned signal aborts when `signal` does or when the
   * call is cancelled; `done` removes it.
   */
  start(
    caller: string,
    id: RequestId,
    signal: AbortSignal,
  ): { readonly signal: AbortSignal; readonly done: () => void } {
    const key = keyOf(caller, id);
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", onAbort, { once: true });
    // A client reusing an id while its first call still runs: the newer call is the cancellable one.
    this.#calls.set(key, controller);
    return {
      signal: controller.signal,
      done: () => {
        signal.removeEventListener("abort", onAbort);
        if (this.#calls.get(key) === controller) this.#calls.delete(key);
      },
    };
  }

  /**
   * Aborts the call `id` of `caller` if it runs here (true), else hands the cancellation to the relay, if
   * any, for the instance that runs it (false).
   */
  cancel(caller: string, id: RequestId, reason?: string): boolean {
    if (this.#abort(caller, id, reason)) return true;
    this.#relay?.publish({ caller, id, ...(reason === undefined ? {} : { reason }) });
    return false;
  }

  #abort(caller: string, id: RequestId, reason?: string): boolean {
    const controller = this.#calls.get(keyOf(caller, id));
    if (controller === undefined) return false;
    controller.abort(new Error(`cancelled by the client${reason ? `: ${reason}` : ""}`));
    this.#calls.delete(keyOf(caller, id));
    return true;
  }
}

const keyOf = (caller: string, id: RequestId) => `${caller}\u0000${typeof id}:${String(id)}`;
