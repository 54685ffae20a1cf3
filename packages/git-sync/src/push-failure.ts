import { Errors } from "isomorphic-git";

// Why a push failed, in words a user can act on: the status and a fixed phrase, never text the git host
// sent (an error's message may quote the first bytes of the host's answer: a hostile or misconfigured host
// could put anything there, the token included). Messages made by this package (the address policy, the
// size cap) are kept, with the token masked in case.

/** A push that failed, with a message for `GET /servers/{id}/git-sync`. */
export class PushFailure extends Error {
  constructor(
    message: string,
    /** For the git push counter: auth, not_found, unreachable, rejected, too_large, other. */
    readonly reason: "auth" | "not_found" | "unreachable" | "rejected" | "too_large" | "other",
  ) {
    super(message);
    this.name = "PushFailure";
  }
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_SOCKET",
]);

/** The code of an error or of the error that caused it. */
const codeOf = (error: unknown): string | undefined => {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
  }
  return undefined;
};

/** The PushFailure for what a push threw; `where` names the repository (`<baseURL>/<owner/repo>`). */
export const pushFailureOf = (error: unknown, where: string, token: string): PushFailure => {
  if (error instanceof PushFailure) return error;
  const mask = (text: string) => (token === "" ? text : text.split(token).join("***"));
  if (error instanceof Errors.HttpError) {
    const status = error.data.statusCode;
    if (status === 401 || status === 403)
      return new PushFailure(
        `the git host refused the credentials for ${where} (HTTP ${status}): check the git connection's token and its access to the repository`,
        "auth",
      );
    if (status === 404)
      return new PushFailure(
        `the repository ${where} does not exist (HTTP 404): create it, or fix gitRepoFullName`,
        "not_found",
      );
    return new PushFailure(`the git host answered HTTP ${status} for ${where}`, "other");
  }
  if (error instanceof Errors.PushRejectedError)
    return new PushFailure(
      `the git host rejected the push to ${where}: ${error.data.reason === "tag-exists" ? "a tag exists" : "the branch moved on (not a fast-forward)"}`,
      "rejected",
    );
  if (error instanceof Errors.GitPushError)
    return new PushFailure(`the git host rejected the push to ${where}: it refused to update the branch`, "rejected");
  const code = codeOf(error);
  if (code === "ERR_UPSTREAM_ADDRESS_REFUSED")
    return new PushFailure(`${where}: ${mask((error as Error).message)}`, "unreachable");
  if (code === "ERR_GIT_RESPONSE_TOO_LARGE")
    return new PushFailure(`${where}: ${(error as Error).message}`, "too_large");
  if (code !== undefined && CONNECTION_CODES.has(code))
    return new PushFailure(`the git host of ${where} is unreachable (${code})`, "unreachable");
  // isomorphic-git's codes (ParseError, SmartHttpError, ...) are fixed words; a code-less error is named by its class.
  const name = code ?? (error instanceof Error ? error.name : typeof error);
  return new PushFailure(
    `pushing to ${where} failed: the git host's answer was not one git understands (${/^[\w.-]{1,60}$/.test(name) ? name : "unknown error"})`,
    "other",
  );
};
