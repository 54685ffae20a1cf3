import { Effect, Either } from "effect";
import { describe, expect, it } from "vitest";
import { authorize, scopeRefusal } from "../src/scopes/authorize.js";
import type { Actor } from "../src/tenancy/actor.js";

const actor = (scopes: ReadonlyArray<string>): Actor => ({ tenant: "t", scopes: new Set(scopes) });

describe("scopeRefusal", () => {
  it("is undefined when the token carries the operation's scope", () => {
    expect(scopeRefusal(actor(["server:read"]), "getServer")).toBeUndefined();
  });

  it("is the PermissionDenied that authorize fails with, naming the missing scope", () => {
    const refusal = scopeRefusal(actor(["server:list"]), "getServer");
    expect(refusal?._tag).toBe("PermissionDenied");
    expect(refusal?.requiredScope).toBe("server:read");
    const failed = Effect.runSync(Effect.either(authorize(actor(["server:list"]), "getServer")));
    expect(Either.isLeft(failed) && failed.left).toEqual(refusal);
  });
});
