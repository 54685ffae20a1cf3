import type { UpstreamLimits, UpstreamResponse } from "@mcpsm/upstream-http";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { essence, isJsonType, isTextualType } from "../media-type.js";

// An upstream response as an MCP tool result: text or binary content, structured content when JSON (the check of
// a declared outputSchema is tool-output/answer-check.ts).

/** A tool result that is an error the model can read. */
export const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: "text", text }] });

/** The upstream body as text: decoded when textual, else base64 with a note. */
export const bodyText = (response: UpstreamResponse, limits: UpstreamLimits): string => {
  const text = isTextualType(response.contentType)
    ? response.body.toString("utf8")
    : `[${response.body.length} bytes of ${response.contentType}, base64-encoded]\n${response.body.toString("base64")}`;
  return response.truncated
    ? `${text}\n[truncated: the upstream response is larger than ${limits.maxResponseBytes} bytes]`
    : text;
};

/**
 * A binary upstream body as MCP content: an image or audio block for those media types, else an embedded
 * resource (its URI the upstream URL). A truncated binary would be corrupt, so it is an error instead.
 */
const binaryContent = (response: UpstreamResponse, limits: UpstreamLimits): CallToolResult => {
  if (response.truncated)
    return errorResult(
      `the upstream answered ${response.contentType} larger than ${limits.maxResponseBytes} bytes; binary content is not cut, so nothing is returned`,
    );
  const mimeType = essence(response.contentType);
  const data = response.body.toString("base64");
  if (mimeType.startsWith("image/")) return { content: [{ type: "image", data, mimeType }] };
  if (mimeType.startsWith("audio/")) return { content: [{ type: "audio", data, mimeType }] };
  return { content: [{ type: "resource", resource: { uri: response.url.href, mimeType, blob: data } }] };
};

/**
 * A tool result from an upstream response: text for textual bodies (with `structuredContent` when JSON),
 * image / audio / embedded-resource content for binary ones.
 */
export const toolResultOf = (response: UpstreamResponse, limits: UpstreamLimits): CallToolResult => {
  if (response.status < 200 || response.status > 299) {
    const text = bodyText(response, limits);
    return errorResult(
      `upstream answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${text !== "" ? `\n${text}` : ""}`,
    );
  }
  if (!isTextualType(response.contentType)) return binaryContent(response, limits);
  const result: CallToolResult = { content: [{ type: "text", text: bodyText(response, limits) }] };
  if (!response.truncated && isJsonType(response.contentType) && response.body.length > 0) {
    try {
      const parsed: unknown = JSON.parse(response.body.toString("utf8"));
      result.structuredContent =
        typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>)
          : { result: parsed };
    } catch {
      // Not valid JSON after all: the text content is the answer.
    }
  }
  return result;
};
