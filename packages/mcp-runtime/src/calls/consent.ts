import type { UpstreamTokenAnswer } from "@mcpsm/upstream-http";
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  type ServerContext,
  UrlElicitationRequiredError,
} from "@modelcontextprotocol/server";
import { randomUUID } from "node:crypto";
import { errorResult } from "./tool-result.js";

// How a caller is told to consent to an upstream OAuth connection first (docs/api-rules.md §13), per era.

/** A consent the caller must give before a tool can run (docs/api-rules.md §13). */
export type ConsentNeeded = Extract<UpstreamTokenAnswer, { kind: "consent" }>;

/** How the caller's client asked to be told about a consent: the protocol era and its URL elicitation support. */
export interface ConsentChannel {
  readonly era: "legacy" | "modern";
  /** True when the client declared URL-mode elicitation; undefined when unknown (a stateless 2025 client). */
  readonly urlElicitation: (ctx: ServerContext) => boolean | undefined;
}

const CONSENT_KEY = "upstream_oauth_consent";

/** What callTool answers instead of a result when the caller must consent first. */
export class ConsentRequired {
  constructor(readonly consent: ConsentNeeded) {}
}

/**
 * The answer to a tools/call that needs consent, in the form of the caller's era: 2026-07-28 an
 * input-required result carrying a URL elicitation; 2025-11-25 the JSON-RPC error -32042 with it; a client
 * that declared no URL elicitation (or declined it) an isError result whose text holds the URL.
 */
export const consentAnswer = <T = CallToolResult>(
  channel: ConsentChannel,
  ctx: ServerContext,
  consent: ConsentNeeded,
  // A resources/read has no tool result: it answers a JSON-RPC error with the same text instead.
  textAnswer: (text: string) => T = (text) => errorResult(text) as T,
  again = "call the tool again",
  // The elicitation's key in an input-required result (another flow, such as an approval, names its own).
  key = CONSENT_KEY,
): T | InputRequiredResult => {
  const text = () => textAnswer(`${consent.message}\nOpen this URL to connect, then ${again}: ${consent.url}`);
  const declared = channel.urlElicitation(ctx);
  if (channel.era === "modern") {
    // A retry that carries an answer to our elicitation and still lacks the connection: the person declined
    // or did not finish; say so in text rather than asking again in a loop.
    if (declared !== true || ctx.mcpReq.inputResponses?.[key] !== undefined) return text();
    return inputRequired({
      inputRequests: { [key]: inputRequired.elicitUrl({ message: consent.message, url: consent.url }) },
    });
  }
  if (declared === false) return text();
  throw new UrlElicitationRequiredError(
    [{ mode: "url", message: consent.message, url: consent.url, elicitationId: randomUUID() }],
    `${consent.message}: ${consent.url}`,
  );
};
