import { forwardableHeaders } from "./header-templates.js";

/**
 * The headers of a tool's upstream request, in order of precedence: the MCP request's forwardable headers
 * (when the server forwards them, never its `Accept`: the transport's media types describe the client's
 * exchange with us), a User-Agent unless one was forwarded, `Accept` and `Content-Type` (the body's media type,
 * only with a body), then the tool's own headers over all of them, except a body whose type carries what the
 * upstream needs to read it (a multipart boundary): its `Content-Type` wins. Names compare without case; the
 * first spelling sent stays.
 */
export const upstreamHeaders = (
  forwardRequestHeaders: boolean,
  incoming: Iterable<readonly [string, string]> | undefined,
  toolHeaders: ReadonlyArray<readonly [string, string]>,
  body: { readonly contentType: string; readonly fixedType?: boolean } | undefined,
  userAgent: string,
): ReadonlyArray<readonly [string, string]> => {
  const headers = new Map<string, readonly [string, string]>();
  const put = (key: string, value: string) => headers.set(key.toLowerCase(), [key, value]);
  if (forwardRequestHeaders && incoming !== undefined)
    for (const [key, value] of forwardableHeaders(incoming)) put(key, value);
  if (forwardRequestHeaders) headers.delete("accept");
  if (!headers.has("user-agent")) put("User-Agent", userAgent);
  put("Accept", "application/json, */*;q=0.8");
  if (body !== undefined) put("Content-Type", body.contentType);
  else headers.delete("content-type");
  for (const [key, value] of toolHeaders) put(key, value);
  if (body?.fixedType === true) put("Content-Type", body.contentType);
  return [...headers.values()];
};
