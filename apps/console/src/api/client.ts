import { createMcpsmClient, type McpsmClient } from "@mcpsm/client";
import { isProblem, localProblem, type Problem } from "./problem.js";
import { currentToken } from "./session.js";

// Every call of the console goes through the typed client (@mcpsm/client): paths, parameters, bodies and
// answers are checked by the compiler against docs/openapi.json.

/** The client of the service that served this page, carrying the signed-in token. */
export const api: McpsmClient = createMcpsmClient({ baseUrl: window.location.origin, token: currentToken });

/** A call's outcome: the answer's data, or the problem the service (or the network) gave. */
export type Outcome<T> =
  | { readonly ok: true; readonly data: T; readonly etag: string | null }
  | { readonly ok: false; readonly problem: Problem };

/** Awaits a typed-client call and folds its answer into an Outcome. */
export const run = async <T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Outcome<T>> => {
  try {
    const { data, error, response } = await call;
    if (response.ok) return { ok: true, data: data as T, etag: response.headers.get("ETag") };
    return {
      ok: false,
      problem: isProblem(error)
        ? error
        : { ...localProblem(`the service answered ${response.status}`), status: response.status, title: "Error" },
    };
  } catch (cause) {
    return { ok: false, problem: localProblem(cause instanceof Error ? cause.message : String(cause)) };
  }
};
