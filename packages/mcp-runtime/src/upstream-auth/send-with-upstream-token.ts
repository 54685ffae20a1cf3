import { Effect } from "effect";
import type {
  UpstreamAuthorization,
  UpstreamResponse,
  UpstreamTokenAnswer,
  UpstreamTokenRequest,
} from "@mcpsm/upstream-http";

/** The response of an exchange sent with the caller's upstream token, or the token answer that stopped it. */
export type SentWithToken =
  | { readonly kind: "response"; readonly response: UpstreamResponse }
  | Exclude<UpstreamTokenAnswer, { readonly kind: "token" }>;

/**
 * docs/api-rules.md §13: an exchange sent with the upstream OAuth token as a bearer. A 401 forgets the token
 * and the exchange is sent once more with a fresh (or refreshed) one; the second answer is final. Without a
 * token request (or an authorization) it is sent with no bearer.
 */
export const sendWithUpstreamToken = <E>(
  authorization: UpstreamAuthorization | undefined,
  request: UpstreamTokenRequest | undefined,
  send: (bearer: string | undefined) => Effect.Effect<UpstreamResponse, E>,
): Effect.Effect<SentWithToken, E> =>
  request === undefined || authorization === undefined
    ? Effect.map(send(undefined), (response) => ({ kind: "response" as const, response }))
    : Effect.gen(function* () {
        let answer = yield* Effect.promise(() => authorization.token(request));
        for (let attempt = 0; ; attempt++) {
          if (answer.kind !== "token") return answer;
          const response = yield* send(answer.accessToken);
          if (response.status !== 401 || attempt > 0) return { kind: "response" as const, response };
          const rejected = answer.accessToken;
          yield* Effect.promise(() => authorization.rejected(request, rejected));
          answer = yield* Effect.promise(() => authorization.token(request));
        }
      });
