import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { jwtAccessTokenVerifier } from "../src/auth/access-token-verifier.js";
import { VerifiedTokenCache } from "../src/auth/verified-token-cache.js";

// A JWT access token is verified once and its actor kept until its `exp`; failures are never kept.

describe("VerifiedTokenCache", () => {
  it("answers what a token proved until its exp, and nothing from then on", () => {
    const cache = new VerifiedTokenCache<string>();
    cache.set("t", "actor", 10_000);
    expect(cache.get("t", 9_999)).toBe("actor");
    expect(cache.get("t", 10_000)).toBeUndefined();
    expect(cache.get("t", 9_999), "an expired entry is dropped").toBeUndefined();
  });

  it("keeps at most maxEntries, least recently used out", () => {
    const cache = new VerifiedTokenCache<string>(2);
    cache.set("a", "A", Number.MAX_SAFE_INTEGER);
    cache.set("b", "B", Number.MAX_SAFE_INTEGER);
    cache.get("a");
    cache.set("c", "C", Number.MAX_SAFE_INTEGER);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual(["A", undefined, "C"]);
  });
});

describe("jwtAccessTokenVerifier", async () => {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" };
  const verifier = jwtAccessTokenVerifier({
    keys: createLocalJWKSet({ keys: [jwk] }),
    issuer: "urn:test",
    audience: "api",
    tenantClaim: "sub",
  });
  const sign = (exp: number, issuer = "urn:test") =>
    new SignJWT({ scope: "server:read" })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(issuer)
      .setAudience("api")
      .setSubject("tenant-a")
      .setExpirationTime(exp)
      .sign(privateKey);
  const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

  it("verifies a token once: the second answer is the actor the first verification proved", async () => {
    const token = await sign(inAnHour());
    const first = await verifier.verify(token);
    expect(first).toMatchObject({ tenant: "tenant-a" });
    expect(await verifier.verify(token)).toBe(first);
  });

  it("never keeps a refusal: a token refused once is refused again, by verification", async () => {
    const wrongIssuer = await sign(inAnHour(), "urn:other");
    expect(await verifier.verify(wrongIssuer)).toMatchObject({ _tag: "Unauthenticated" });
    expect(await verifier.verify(wrongIssuer)).toMatchObject({ _tag: "Unauthenticated" });
    const expired = await sign(Math.floor(Date.now() / 1000) - 10);
    expect(await verifier.verify(expired)).toMatchObject({
      _tag: "Unauthenticated",
      detail: "the access token has expired",
    });
  });
});
