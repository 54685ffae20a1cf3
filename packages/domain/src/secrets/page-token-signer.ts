import { createHmac, timingSafeEqual } from "node:crypto";
import { Context, Layer } from "effect";

/** Signs and checks opaque pagination tokens so a tampered or foreign token is recognised. */
export class PageTokenSigner extends Context.Tag("@mcpsm/domain/PageTokenSigner")<
  PageTokenSigner,
  {
    readonly sign: (payload: string) => string;
    /** The payload of a token this signer made, or undefined. */
    readonly verify: (token: string) => string | undefined;
  }
>() {}

/**
 * A PageTokenSigner using HMAC-SHA-256 under `key`; tokens signed under a `previous` key are still accepted
 * (so a key rotation does not break the pages clients are walking).
 */
export const hmacPageTokenSigner = (key: Uint8Array, previous: ReadonlyArray<Uint8Array> = []) => {
  const macUnder = (k: Uint8Array, payload: string) => createHmac("sha256", k).update(payload).digest();
  const mac = (payload: string) => macUnder(key, payload);
  return PageTokenSigner.of({
    sign: (payload) => `${Buffer.from(payload, "utf8").toString("base64url")}.${mac(payload).toString("base64url")}`,
    verify: (token) => {
      const [body, signature] = token.split(".");
      if (body === undefined || signature === undefined || token.split(".").length !== 2) return undefined;
      const payload = Buffer.from(body, "base64url").toString("utf8");
      const given = Buffer.from(signature, "base64url");
      for (const k of [key, ...previous]) {
        const expected = macUnder(k, payload);
        if (given.length === expected.length && timingSafeEqual(given, expected)) return payload;
      }
      return undefined;
    },
  });
};

/** A PageTokenSigner layer under `key`. */
export const hmacPageTokenSignerLayer = (key: Uint8Array, previous: ReadonlyArray<Uint8Array> = []) =>
  Layer.succeed(PageTokenSigner, hmacPageTokenSigner(key, previous));
