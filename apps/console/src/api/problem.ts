import type { Problem } from "@mcpsm/client";

// Every failed call becomes a Problem (RFC 9457, docs/api-rules.md §2); a network failure is a local one
// with status 0. Field errors are looked up by the `errors[].path` the service names.

export type { Problem };

/** A problem for a failure that never reached the service (network, aborted). */
export const localProblem = (detail: string): Problem => ({
  type: "about:blank",
  title: "Network error",
  status: 0,
  code: "UNAVAILABLE",
  detail,
  requestId: "",
});

/** Whether `value` has the shape of a problem body. */
export const isProblem = (value: unknown): value is Problem =>
  typeof value === "object" && value !== null && "status" in value && "detail" in value;

/** The messages of `problem.errors` whose path is `path` or lies under it (`server.name`, `server.providers[0]`). */
export const fieldErrors = (problem: Problem | undefined, path: string): ReadonlyArray<string> =>
  (problem?.errors ?? [])
    .filter((e) => e.path === path || e.path.startsWith(`${path}.`) || e.path.startsWith(`${path}[`))
    .map((e) => e.message);

/** One message for a field, or undefined when it has none. */
export const fieldError = (problem: Problem | undefined, path: string): string | undefined => {
  const messages = fieldErrors(problem, path);
  return messages.length === 0 ? undefined : messages.join("; ");
};

/** Whether the problem is a version conflict the user resolves by reloading (409 ABORTED, 412). */
export const isConflict = (problem: Problem | undefined): boolean =>
  problem !== undefined && ((problem.status === 409 && problem.code === "ABORTED") || problem.status === 412);
