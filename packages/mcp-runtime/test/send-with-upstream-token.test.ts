import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { sendWithUpstreamToken } from "../src/upstream-auth/send-with-upstream-token.js";
import type { UpstreamAuthorization, UpstreamTokenAnswer, UpstreamTokenRequest } from "@mcpsm/upstream-http";
import type { UpstreamResponse } from "@mcpsm/upstream-http";

// docs/api-rules.md §13: a 401 forgets the token and the exchange is sent once more; the second answer is final.

const request = {} as UpstreamTokenRequest;

const responseOf = (status: number): UpstreamResponse => ({
  status,
  statusText: "",
  contentType: "text/plain",
  body: Buffer.alloc(0),
  truncated: false,
  url: new URL("https://upstream.example/"),
});

/** An authorization answering `answers` in turn, and a sender answering `statuses` in turn; both logged. */
const harness = (answers: ReadonlyArray<UpstreamTokenAnswer>, statuses: ReadonlyArray<number>) => {
  const log: Array<string> = [];
  let asked = 0;
  let sent = 0;
  const authorization: UpstreamAuthorization = {
    token: async () => {
      log.push("token");
      return answers[asked++] ?? { kind: "failure", message: "no more answers" };
    },
    rejected: async (_request, accessToken) => {
      log.push(`rejected ${accessToken}`);
    },
  };
  const send = (bearer: string | undefined) =>
    Effect.sync(() => {
      log.push(`send ${bearer ?? "-"}`);
      return responseOf(statuses[sent++] ?? 200);
    });
  return { log, authorization, send };
};

const run = (...args: Parameters<typeof sendWithUpstreamToken<never>>) =>
  Effect.runPromise(sendWithUpstreamToken(...args));

describe("sendWithUpstreamToken", () => {
  it("sends without a bearer when there is no token request or no authorization", async () => {
    const { log, authorization, send } = harness([{ kind: "token", accessToken: "a" }], [401]);
    expect(await run(authorization, undefined, send)).toMatchObject({ kind: "response", response: { status: 401 } });
    expect(await run(undefined, request, send)).toMatchObject({ kind: "response", response: { status: 200 } });
    expect(log).toEqual(["send -", "send -"]);
  });

  it("sends with the token; a 401 forgets it and sends once more with a fresh one", async () => {
    const { log, authorization, send } = harness(
      [
        { kind: "token", accessToken: "a" },
        { kind: "token", accessToken: "b" },
      ],
      [401, 200],
    );
    expect(await run(authorization, request, send)).toMatchObject({ kind: "response", response: { status: 200 } });
    expect(log).toEqual(["token", "send a", "rejected a", "token", "send b"]);
  });

  it("answers the second 401 as it is, without a third try", async () => {
    const { log, authorization, send } = harness(
      [
        { kind: "token", accessToken: "a" },
        { kind: "token", accessToken: "b" },
      ],
      [401, 401, 200],
    );
    expect(await run(authorization, request, send)).toMatchObject({ kind: "response", response: { status: 401 } });
    expect(log).toEqual(["token", "send a", "rejected a", "token", "send b"]);
  });

  it("stops at a consent or a failure, before or after a 401, sending nothing more", async () => {
    const consent = { kind: "consent", url: "https://service.example/consent", message: "consent first" } as const;
    const first = harness([consent], []);
    expect(await run(first.authorization, request, first.send)).toEqual(consent);
    expect(first.log).toEqual(["token"]);
    const failure = { kind: "failure", message: "the token endpoint refused" } as const;
    const second = harness([{ kind: "token", accessToken: "a" }, failure], [401]);
    expect(await run(second.authorization, request, second.send)).toEqual(failure);
    expect(second.log).toEqual(["token", "send a", "rejected a", "token"]);
  });
});
