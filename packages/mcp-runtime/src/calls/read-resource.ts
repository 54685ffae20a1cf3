import type { ToolHeader } from "@mcpsm/domain/schemas";
import { holdsVariableReference, isOnBaseUrl, type McpCaller, resolveToolHeaders } from "@mcpsm/domain/mcp";
import { UpstreamFailure } from "@mcpsm/upstream-http";
import type { ReadResourceResult, ServerContext } from "@modelcontextprotocol/server";
import { Effect, Either } from "effect";
import type { CompiledResource, CompiledServer } from "../compiled-server.js";
import type { UpstreamObserver } from "../instrumentation.js";
import { isTextualType } from "../media-type.js";
import { sendWithUpstreamToken } from "../upstream-auth/send-with-upstream-token.js";
import { observedUpstream, tokenRequest } from "./call-tool.js";
import { ConsentRequired } from "./consent.js";
import { bodyText } from "./tool-result.js";
import type { UpstreamServices } from "./upstream-services.js";

/**
 * The credential headers a resource read sends: per header name, the first candidate whose variables all
 * exist (a tool's header naming a variable the owner never defined is that tool's problem, not the read's;
 * so is a per-caller variable the caller has no value for: its tools ask for it).
 */
const resourceCredentials = (
  tenant: string,
  secretPrefix: string,
  candidates: ReadonlyArray<ToolHeader>,
  principal: McpCaller,
) =>
  Effect.gen(function* () {
    const sent = new Map<string, readonly [string, string]>();
    for (const header of candidates) {
      if (sent.has(header.key.toLowerCase())) continue;
      const resolved = yield* Effect.either(resolveToolHeaders(tenant, secretPrefix, [header], principal));
      if (Either.isRight(resolved)) for (const pair of resolved.right) sent.set(pair[0].toLowerCase(), pair);
      else if (
        resolved.left._tag !== "FailedPrecondition" &&
        resolved.left._tag !== "PermissionDenied" &&
        resolved.left._tag !== "CallerValueNeeded"
      )
        return yield* Effect.fail(resolved.left);
    }
    return [...sent.values()];
  });

/**
 * A `resources/read`: one GET of the resource's URL under the same policy and limits as tool calls. When the
 * URL is on its provider's base URL, the provider's credential headers go with it (variables resolved as
 * for tools); never to another address.
 */
export const readResource = (
  services: UpstreamServices,
  observe: UpstreamObserver,
  compiled: CompiledServer,
  resource: CompiledResource,
  ctx: ServerContext,
  principal: McpCaller,
) =>
  Effect.gen(function* () {
    const { uri, mimeType } = resource.row;
    const failed = (kind: UpstreamFailure["kind"], why: string) =>
      new UpstreamFailure({ kind, message: `reading '${uri}' failed: ${why}` });
    if (holdsVariableReference(uri))
      return yield* failed("refused", "its URI holds a ${…} reference, which only tool header values resolve");
    const url = URL.parse(uri);
    if (url === null || (url.protocol !== "http:" && url.protocol !== "https:"))
      return yield* failed("refused", "it is not an http(s) URL");
    const provider = resource.provider;
    const onBase = provider !== undefined && isOnBaseUrl(url, provider.baseURL);
    const credentials = onBase
      ? yield* resourceCredentials(compiled.tenant, provider.secretPrefix, resource.credentialHeaders, principal)
      : [];
    const send = (bearer: string | undefined) =>
      Effect.flatMap(
        Effect.promise(() =>
          observedUpstream(services, observe, {
            method: "GET",
            url,
            headers: [
              ["User-Agent", services.userAgent],
              ["Accept", mimeType || "*/*"],
              ...credentials,
              ...(bearer === undefined ? [] : [["Authorization", `Bearer ${bearer}`] as const]),
            ],
            signal: ctx.mcpReq.signal,
          }),
        ),
        Either.mapLeft((failure) => failed(failure.kind, failure.message)),
      );
    // docs/api-rules.md §13: on its provider's base URL, a read sends the upstream OAuth token as tools do
    // (the caller's connection, or a consent to give first; a 401 is retried once with a fresh token).
    const sent = yield* sendWithUpstreamToken(
      services.authorization,
      onBase ? tokenRequest(services, compiled, { provider }, principal) : undefined,
      send,
    );
    if (sent.kind === "failure") return yield* failed("refused", sent.message);
    if (sent.kind === "consent") return new ConsentRequired(sent);
    const { response } = sent;
    if (response.status < 200 || response.status > 299)
      return yield* failed("status", `upstream answered HTTP ${response.status}`);
    const type = mimeType || response.contentType;
    if (isTextualType(type))
      return {
        contents: [{ uri, ...(type ? { mimeType: type } : {}), text: bodyText(response, services.limits) }],
      } satisfies ReadResourceResult;
    if (response.truncated)
      return yield* failed("size", `the resource is larger than ${services.limits.maxResponseBytes} bytes`);
    return { contents: [{ uri, mimeType: type, blob: response.body.toString("base64") }] } satisfies ReadResourceResult;
  });
