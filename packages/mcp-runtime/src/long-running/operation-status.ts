import type { UpstreamResponse } from "@mcpsm/upstream-http";

// docs/api-rules.md §22: how an upstream's long-running operation is watched. A `202 Accepted` names a status
// URL (`Operation-Location`, else `Location`); each answer of that URL says whether the work is still going.

/** Where an accepted operation is watched, or why it cannot be followed (the 202 is then answered as it is). */
export type StatusUrl =
  | { readonly kind: "url"; readonly url: URL }
  | { readonly kind: "none"; readonly reason: string };

/**
 * The status URL of a 202, resolved against the URL that answered. Only the same origin is followed: the
 * poll carries the call's credentials, which must not reach another host (as with redirects).
 */
export const statusUrlOf = (response: UpstreamResponse): StatusUrl => {
  const location = response.accepted?.location ?? "";
  if (location === "") return { kind: "none", reason: "the upstream accepted the request without a status URL" };
  let url: URL;
  try {
    url = new URL(location, response.url);
  } catch {
    return { kind: "none", reason: "the upstream accepted the request with an invalid status URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { kind: "none", reason: "the upstream's status URL is not http(s)" };
  if (url.origin !== response.url.origin)
    return {
      kind: "none",
      reason: `the upstream's status URL is on another host (${url.origin}); not followed with the call's credentials`,
    };
  return { kind: "url", url };
};

/** `Retry-After` in ms (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export const retryAfterMs = (value: string, now: number): number | undefined => {
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};

/** Status words of operation resources (Azure, Google, AWS and others) that mean "not finished yet". */
const RUNNING = new Set([
  "running",
  "inprogress",
  "in_progress",
  "notstarted",
  "not_started",
  "accepted",
  "pending",
  "queued",
  "started",
  "working",
  "provisioning",
  "creating",
  "updating",
  "deleting",
]);

/** The JSON body's own status word (`status`, `state` or `done: false`), lower-cased; undefined: none. */
const bodyStatus = (response: UpstreamResponse): string | boolean | undefined => {
  if (response.truncated || !/json/i.test(response.contentType) || response.body.length > 64 * 1024) return undefined;
  try {
    const body: unknown = JSON.parse(response.body.toString("utf8"));
    if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
    const record = body as Record<string, unknown>;
    // Google's long-running operations: `done` is absent or false until finished.
    if (typeof record.name === "string" && "metadata" in record && record.done !== true) return true;
    const word = record.status ?? record.state;
    return typeof word === "string" ? word.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
};

/** One look at the status URL: still working (maybe at a new URL, with a wait), or the final answer. */
export type PollStep =
  | {
      readonly kind: "working";
      readonly url?: URL | undefined;
      readonly waitMs?: number | undefined;
      readonly message?: string | undefined;
    }
  | { readonly kind: "done"; readonly response: UpstreamResponse };

/** What an answer of the status URL says: another 202, or a 2xx whose body still says running, is not done. */
export const pollStepOf = (response: UpstreamResponse, now: number): PollStep => {
  if (response.status === 202) {
    const next = statusUrlOf(response);
    return {
      kind: "working",
      url: next.kind === "url" ? next.url : undefined,
      waitMs: retryAfterMs(response.accepted?.retryAfter ?? "", now),
    };
  }
  if (response.status >= 200 && response.status < 300) {
    const status = bodyStatus(response);
    if (status === true || (typeof status === "string" && RUNNING.has(status)))
      return {
        kind: "working",
        message: typeof status === "string" ? `the upstream operation is ${status}` : undefined,
      };
  }
  return { kind: "done", response };
};
