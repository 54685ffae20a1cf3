import { hkdfSync } from "node:crypto";

/**
 * A key for one purpose (page tokens, cookies, consent states), derived from the encryption key so that one
 * secret configures them all, the same on every instance and across restarts.
 */
export const derivedKey = (key: Uint8Array, purpose: string): Uint8Array =>
  new Uint8Array(hkdfSync("sha256", key, new Uint8Array(0), `mcpsm:${purpose}`, 32));
