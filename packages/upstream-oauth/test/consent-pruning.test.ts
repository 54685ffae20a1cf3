import { beginUpstreamConsent, CONSENT_TTL_SECONDS, takeUpstreamConsent } from "@mcpsm/domain/mcp";
import { Storage } from "@mcpsm/domain/storage";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { actorOf, makeServices, manage } from "./support/harness.js";

// docs/api-rules.md §13: a consent under way that expires unused is never taken; beginning a new consent
// deletes a bounded batch of expired ones, so the table does not grow with abandoned links.

describe("pending consents", () => {
  it("beginning a consent deletes the expired ones, never a live one", async () => {
    const storage = makeMemoryStorage();
    const services = makeServices(storage);
    try {
      const tenant = "prune-tenant";
      const provider = await manage(services, actorOf(tenant)).provider({
        name: "Pruned",
        baseURL: "https://api.example.com",
        oauth2Config: {
          clientID: "c",
          clientSecret: "s",
          authURL: "https://as.example.com/authorize",
          tokenURL: "https://as.example.com/token",
        },
      });
      const caller = { kind: "oauth", tenant, subject: "someone" } as const;
      const begin = () =>
        services.runPromise(
          beginUpstreamConsent({ providerId: provider.id, tenant, caller, scopes: [], codeVerifier: "v".repeat(43) }),
        );
      const live = await begin();
      // A consent that expired unused, stored as a past one would have been.
      const expiredId = "expiredCons";
      await services.runPromise(
        Effect.flatMap(Storage, (store) =>
          store.transaction((tx) =>
            tx.insertUpstreamAuthorization({
              id: expiredId,
              tenant,
              providerId: provider.id,
              principal: "oauth:someone",
              serverTokenId: null,
              scopes: [],
              codeVerifierCipher: "v1.k.unused",
              expiresAt: new Date(Date.now() - 1000),
              createdAt: new Date(Date.now() - (CONSENT_TTL_SECONDS + 1) * 1000),
            }),
          ),
        ),
      );
      await begin();
      const taken = await services.runPromise(
        Effect.flatMap(Storage, (store) => store.transaction((tx) => tx.takeUpstreamAuthorization(expiredId))),
      );
      expect(taken).toBeUndefined();
      // The live consent is still usable.
      expect(await services.runPromise(takeUpstreamConsent(live.id))).toMatchObject({ id: live.id });
    } finally {
      await services.dispose();
    }
  });
});
