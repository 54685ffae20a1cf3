import { createHmac, timingSafeEqual } from "node:crypto";

// The `state` of a consent (docs/api-rules.md §13): opaque to the person and the authorization server,
// HMAC-signed by the service, expiring after 10 minutes, bound to the consent under way it names (which the
// store holds with its caller, provider and scopes, and gives to one callback only).

/** What a consent's state carries. */
export interface ConsentState {
  /** The consent under way (its row holds the caller and the PKCE verifier). */
  readonly consentId: string;
  readonly providerId: string;
  readonly scopes: ReadonlyArray<string>;
  /** The PKCE S256 challenge of its verifier (public by design). */
  readonly codeChallenge: string;
  /** Expiry, seconds since the epoch. */
  readonly expiresAt: number;
}

const sign = (key: Uint8Array, payload: string) => createHmac("sha256", key).update(payload).digest("base64url");

/** The state string of `state`, signed with `key`. */
export const encodeConsentState = (key: Uint8Array, state: ConsentState): string => {
  const payload = Buffer.from(
    JSON.stringify({
      c: state.consentId,
      p: state.providerId,
      s: state.scopes,
      h: state.codeChallenge,
      e: state.expiresAt,
    }),
  ).toString("base64url");
  return `${payload}.${sign(key, payload)}`;
};

/** Why a state is refused. */
export type StateRefusal = "malformed" | "tampered" | "expired";

/** The state a string carries, or why it is refused (a bad signature, a past expiry, garbage). */
export const decodeConsentState = (key: Uint8Array, value: string, nowSeconds: number): ConsentState | StateRefusal => {
  if (value.length > 4096) return "malformed";
  const [payload, signature, ...rest] = value.split(".");
  if (payload === undefined || signature === undefined || rest.length > 0 || payload === "") return "malformed";
  const expected = Buffer.from(sign(key, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "tampered";
  try {
    const raw = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    const { c, p, s, h, e } = raw;
    if (
      typeof c !== "string" ||
      typeof p !== "string" ||
      typeof h !== "string" ||
      typeof e !== "number" ||
      !Array.isArray(s) ||
      !s.every((x) => typeof x === "string")
    )
      return "malformed";
    if (e <= nowSeconds) return "expired";
    return { consentId: c, providerId: p, scopes: s as Array<string>, codeChallenge: h, expiresAt: e };
  } catch {
    return "malformed";
  }
};
