import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hmacPageTokenSigner } from "../src/secrets/page-token-signer.js";

const key = () => new Uint8Array(randomBytes(32));

describe("hmacPageTokenSigner", () => {
  it("round-trips any payload", () => {
    const signer = hmacPageTokenSigner(key());
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (payload) => {
        expect(signer.verify(signer.sign(payload))).toBe(payload);
      }),
    );
  });

  it("produces URL-safe tokens", () => {
    const signer = hmacPageTokenSigner(key());
    expect(signer.sign('{"after":"Ab3dE5gH9jK","q":"a b/c+d"}')).toMatch(/^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/);
  });

  it("rejects a tampered payload", () => {
    const signer = hmacPageTokenSigner(key());
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), fc.string({ maxLength: 50 }), (payload, other) => {
        fc.pre(payload !== other);
        const [, signature] = signer.sign(payload).split(".");
        const forged = `${Buffer.from(other, "utf8").toString("base64url")}.${signature}`;
        expect(signer.verify(forged)).toBeUndefined();
      }),
    );
  });

  it("rejects a tampered signature", () => {
    const signer = hmacPageTokenSigner(key());
    const token = signer.sign("offset=20");
    const [body, signature = ""] = token.split(".");
    const flipped = Buffer.from(signature, "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(signer.verify(`${body}.${flipped.toString("base64url")}`)).toBeUndefined();
    expect(signer.verify(`${body}.${signature.slice(0, -2)}`)).toBeUndefined();
    expect(signer.verify(`${body}.`)).toBeUndefined();
    expect(signer.verify(body ?? "")).toBeUndefined();
  });

  it("rejects malformed tokens", () => {
    const signer = hmacPageTokenSigner(key());
    const token = signer.sign("x");
    for (const bad of ["", ".", "a.b.c", `${token}.extra`, "not a token"]) expect(signer.verify(bad)).toBeUndefined();
  });

  it("rejects tokens signed under another key", () => {
    const a = hmacPageTokenSigner(key());
    const b = hmacPageTokenSigner(key());
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), (payload) => {
        expect(b.verify(a.sign(payload))).toBeUndefined();
      }),
    );
  });

  it("accepts tokens from another signer with the same key", () => {
    const k = key();
    expect(hmacPageTokenSigner(k).verify(hmacPageTokenSigner(new Uint8Array(k)).sign("p"))).toBe("p");
  });
});

describe("rotation", () => {
  it("tokens signed under a previous key still verify; a stranger's do not", () => {
    const signer = hmacPageTokenSigner;
    const [a, b, c] = [1, 2, 3].map((n) => new Uint8Array(32).fill(n));
    const old = signer(a!).sign("payload");
    expect(signer(b!, [a!]).verify(old)).toBe("payload");
    expect(signer(b!).verify(old)).toBeUndefined();
    expect(signer(b!, [a!]).verify(signer(c!).sign("payload"))).toBeUndefined();
  });
});
