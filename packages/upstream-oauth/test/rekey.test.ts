import { randomBytes } from "node:crypto";
import { connectionOwner, findUpstreamConnection, saveUpstreamConnection } from "@mcpsm/domain/mcp";
import { keyIdOf, rekeySecrets } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { expect, it } from "vitest";
import { actorOf, makeServices, manage } from "./support/harness.js";

// Connection tokens are secrets like any other (docs/api-rules.md §13): encrypted under the service's key,
// and moved to a new key by rekey together with client secrets and SECRET variables.

it("rekey re-encrypts upstream connection tokens under the new key", async () => {
  const storage = makeMemoryStorage();
  const [oldKey, newKey] = [new Uint8Array(randomBytes(32)), new Uint8Array(randomBytes(32))];
  const before = makeServices(storage, oldKey);
  const provider = await manage(before, actorOf("acme")).provider({
    name: "Calendar",
    baseURL: "https://calendar.example.com/api",
    oauth2Config: {
      clientID: "c",
      clientSecret: "rekey-client-secret",
      authURL: "https://idp.example.com/a",
      tokenURL: "https://idp.example.com/t",
    },
  });
  const caller = { kind: "oauth", tenant: "acme", subject: "alice" } as const;
  const tokens = { accessToken: "access-token-value", refreshToken: "refresh-token-value" };
  const saved = await before.runPromise(
    saveUpstreamConnection({
      providerId: provider.id,
      tenant: "acme",
      owner: connectionOwner(caller),
      scopes: ["read"],
      tokens,
      expiresIn: 3600,
    }),
  );
  expect(saved.tokensCipher.split(".")[1]).toBe(keyIdOf(oldKey));
  expect(saved.tokensCipher).not.toContain("access-token-value");
  await before.dispose();

  const rotating = makeServices(storage, newKey, [oldKey]);
  const report = await rotating.runPromise(rekeySecrets());
  expect(report.reencrypted).toBe(2);
  await rotating.dispose();

  const after = makeServices(storage, newKey);
  const found = await after.runPromise(findUpstreamConnection(provider.id, "acme", caller));
  expect(found?.tokens).toEqual(tokens);
  expect(found?.row.tokensCipher.split(".")[1]).toBe(keyIdOf(newKey));
  expect(found?.row.principal).toBe("oauth:alice");
  await after.dispose();
});
