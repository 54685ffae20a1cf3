import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { findCallerValueForm, isCallerValueFormId, submitCallerValue } from "@mcpsm/domain/mcp";
import type { Storage } from "@mcpsm/domain/storage";
import type { SecretCipher } from "@mcpsm/domain/use-cases";
import type { Effect } from "effect";
import { formPage, outcomePage, PAGE_HEADERS } from "./credential-page.js";

// `GET /credentials/{id}` shows the form, `POST /credentials/{id}` stores what the person entered
// (docs/api-rules.md §23). The id is the capability (unguessable, single use, 10 minutes). Against CSRF the
// POST must carry a token bound to that form and to a cookie the GET set (SameSite=Strict, HttpOnly), and a
// cross-site Origin or Sec-Fetch-Site is refused; against clickjacking no page may be framed. A bad entry
// shows the form again and spends nothing; an unknown, used or expired id stores nothing.

/** An HTTP answer of a page. */
export interface PageAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Runs the domain's effects (the service's runtime). */
export interface PageRunner {
  readonly runPromise: <A, E>(effect: Effect.Effect<A, E, Storage | SecretCipher>) => Promise<A>;
}

/** What a page request brings besides its body. */
export interface CredentialRequest {
  readonly formId: string;
  /** The Cookie header. */
  readonly cookie: string | undefined;
  readonly origin: string | undefined;
  /** The Sec-Fetch-Site header. */
  readonly fetchSite: string | undefined;
  /** For the audit event of the value it stores. */
  readonly requestId: string;
}

export interface CredentialPagesOptions {
  readonly runner: PageRunner;
  /** Signs the forms' CSRF tokens (the same on every instance). */
  readonly csrfKey: Uint8Array;
  /** The service's public base URL (no trailing slash). */
  readonly publicUrl: () => string;
  /** Called once per value stored (a metric). */
  readonly onStored?: (() => void) | undefined;
}

const COOKIE = "mcpsm_credential_form";
/** A value goes into a header: at most 64 KiB, no control characters but tab. */
const MAX_VALUE_BYTES = 64 * 1024;

const page = (status: number, body: string, extra: Readonly<Record<string, string>> = {}): PageAnswer => ({
  status,
  headers: { ...PAGE_HEADERS, ...extra },
  body,
});

const gone = () =>
  page(
    400,
    outcomePage(
      "error",
      "This link cannot be used",
      "The link is not valid, was already used, or has expired (links are valid for 10 minutes). Call the tool again in your client for a new one. Nothing was stored.",
    ),
  );

const cookieNonce = (cookie: string | undefined): string | undefined => {
  for (const part of (cookie ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === COOKIE) {
      const value = rest.join("=");
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
};

/** Why an entered value is refused, or undefined when it can be stored. */
const valueProblem = (value: string): string | undefined => {
  if (value === "") return "Enter a value.";
  if (Buffer.byteLength(value, "utf8") > MAX_VALUE_BYTES) return "The value is longer than 64 KiB.";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))
    return "The value may not hold line breaks or control characters.";
  return undefined;
};

/** The form's two pages over the store and cipher `runner` provides. */
export const credentialPages = (options: CredentialPagesOptions) => {
  const csrfOf = (formId: string, nonce: string) =>
    createHmac("sha256", options.csrfKey).update(`${formId}.${nonce}`).digest("base64url");
  const secure = () => options.publicUrl().startsWith("https:");
  const setCookie = (nonce: string) =>
    `${COOKIE}=${nonce}; Path=/credentials/; Max-Age=600; HttpOnly; SameSite=Strict${secure() ? "; Secure" : ""}`;

  const form = async (request: CredentialRequest, problem?: string, status = 200): Promise<PageAnswer> => {
    const shown = await options.runner.runPromise(findCallerValueForm(request.formId));
    if (shown === undefined) return gone();
    const nonce = cookieNonce(request.cookie) ?? randomBytes(32).toString("base64url");
    return page(
      status,
      formPage({
        action: `/credentials/${request.formId}`,
        csrf: csrfOf(request.formId, nonce),
        variableName: shown.variableName,
        providerName: shown.providerName,
        problem,
      }),
      { "Set-Cookie": setCookie(nonce) },
    );
  };

  /** The submission passes the CSRF checks: same-site, and the token of this form and this browser's cookie. */
  const sameSite = (request: CredentialRequest, csrf: string): boolean => {
    if (request.fetchSite !== undefined && request.fetchSite !== "same-origin" && request.fetchSite !== "none")
      return false;
    if (request.origin !== undefined && request.origin !== new URL(options.publicUrl()).origin) return false;
    const nonce = cookieNonce(request.cookie);
    if (nonce === undefined) return false;
    const expected = Buffer.from(csrfOf(request.formId, nonce));
    const given = Buffer.from(csrf);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };

  return {
    show: async (request: CredentialRequest): Promise<PageAnswer> => {
      if (!isCallerValueFormId(request.formId)) return gone();
      try {
        return await form(request);
      } catch {
        return page(503, outcomePage("error", "Try again", "The service could not read the form; reload the page."));
      }
    },
    submit: async (request: CredentialRequest, body: URLSearchParams): Promise<PageAnswer> => {
      if (!isCallerValueFormId(request.formId)) return gone();
      if (!sameSite(request, body.get("csrf") ?? ""))
        return page(
          403,
          outcomePage(
            "error",
            "Not stored",
            "The form was not sent from the service's own page in this browser. Open the link again. Nothing was stored.",
          ),
        );
      const value = (body.get("value") ?? "").trim();
      try {
        const problem = valueProblem(value);
        if (problem !== undefined) return await form(request, problem, 400);
        const stored = await options.runner.runPromise(submitCallerValue(request.formId, value, request.requestId));
        if (stored === undefined) return gone();
        options.onStored?.();
        return page(
          200,
          outcomePage(
            "ok",
            `Your ${stored} is saved`,
            "You can close this page, return to your client and call the tool again.",
          ),
        );
      } catch {
        return page(503, outcomePage("error", "Not stored", "The value could not be stored; try again."));
      }
    },
  };
};
