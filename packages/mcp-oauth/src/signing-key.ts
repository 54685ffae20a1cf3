import { createECDH, hkdfSync } from "node:crypto";
import { calculateJwkThumbprint, type JWK } from "jose";

// The key that signs the authorization server's access tokens is derived from the service's encryption
// key (HKDF-SHA-256, purpose-bound) rather than generated or stored: every instance configured with the same
// ENCRYPTION_KEY signs and verifies with the same key, a restart changes nothing, and rotating
// ENCRYPTION_KEY (with the old one in ENCRYPTION_KEYS_OLD) rotates it too — tokens signed under an old key
// stay valid until they expire. See docs/decisions.md, "Issue 16 (rest)".

const P256_ORDER = BigInt("0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");

/** The ES256 private JWK (with `kid` = its RFC 7638 thumbprint) derived from `secret` (32+ random bytes). */
export const deriveSigningKey = async (secret: Uint8Array): Promise<JWK> => {
  // A P-256 private scalar must lie in [1, n-1]; HKDF output falls outside with probability ~2^-32, and
  // then the next counter value is taken.
  for (let counter = 0; ; counter++) {
    const d = Buffer.from(hkdfSync("sha256", secret, new Uint8Array(0), `mcpsm:mcp-oauth-signing:${counter}`, 32));
    const scalar = BigInt(`0x${d.toString("hex")}`);
    if (scalar === 0n || scalar >= P256_ORDER) continue;
    const ecdh = createECDH("prime256v1");
    ecdh.setPrivateKey(d);
    const point = ecdh.getPublicKey();
    const publicJwk = {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    };
    const kid = await calculateJwkThumbprint(publicJwk);
    return { ...publicJwk, d: d.toString("base64url"), alg: "ES256", use: "sig", kid };
  }
};
