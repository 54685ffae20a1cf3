import { Either } from "effect";
import { FailedPrecondition, PermissionDenied } from "../errors/domain-errors.js";
import type { ToolHeader } from "../tool/tool-schema.js";
import { MAX_RESOLVED_HEADER_CHARS } from "./expansion-limits.js";

// Tool header values may reference the owner's variables as `${NAME}` (docs/api-rules.md §9). Only names made for
// the provider's upstream resolve: they must start with the provider's secretPrefix and `_`, so a PUBLIC
// provider written by another tenant can never read a variable that was not made for its upstream.

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The variable names a set of header values references, in first-use order. */
export const referencedVariables = (headers: ReadonlyArray<ToolHeader>): ReadonlyArray<string> => {
  const names = new Set<string>();
  for (const header of headers) for (const match of header.value.matchAll(REFERENCE)) names.add(match[1] ?? "");
  return [...names];
};

/** True when a tool of a provider with `secretPrefix` may read the variable `name`. */
export const mayReadVariable = (secretPrefix: string, name: string): boolean =>
  secretPrefix !== "" && name.startsWith(`${secretPrefix}_`) && name.length > secretPrefix.length + 1;

/** The referenced names a provider may not read (checked before any variable is looked up). */
export const refusedVariables = (secretPrefix: string, names: ReadonlyArray<string>): ReadonlyArray<string> =>
  names.filter((name) => !mayReadVariable(secretPrefix, name));

/** Resolved headers, or why they cannot be: a refused name, a missing variable, a value that breaks a header. */
export type HeaderResolution = Either.Either<
  ReadonlyArray<readonly [string, string]>,
  PermissionDenied | FailedPrecondition
>;

/** PermissionDenied naming the referenced names the provider may not read, if any. */
export const refusedVariablesError = (secretPrefix: string, names: ReadonlyArray<string>) => {
  const refused = refusedVariables(secretPrefix, names);
  return refused.length === 0
    ? undefined
    : new PermissionDenied({
        detail: `header variable${refused.length > 1 ? "s" : ""} ${refused.map((n) => `\${${n}}`).join(", ")} refused: a tool of this provider may only use variables whose name starts with '${secretPrefix}_'`,
      });
};

/**
 * The tool's headers with every `${NAME}` replaced by its value. A name the provider may not read
 * (PermissionDenied), or that the owner has no variable for (FailedPrecondition), fails the whole call with a
 * message naming it (never its value); so does a value longer than MAX_RESOLVED_HEADER_CHARS once resolved.
 */
export const resolveHeaderTemplates = (
  headers: ReadonlyArray<ToolHeader>,
  secretPrefix: string,
  values: ReadonlyMap<string, string>,
): HeaderResolution => {
  const names = referencedVariables(headers);
  const refused = refusedVariablesError(secretPrefix, names);
  if (refused !== undefined) return Either.left(refused);
  const missing = names.filter((name) => !values.has(name));
  if (missing.length > 0)
    return Either.left(
      new FailedPrecondition({
        detail: `header variable${missing.length > 1 ? "s" : ""} ${missing.map((n) => `\${${n}}`).join(", ")} not defined: create ${missing.length > 1 ? "them" : "it"} under /variables`,
        references: [],
      }),
    );
  // A value may repeat a 64 KiB variable a thousand times: measure before building.
  for (const header of headers) {
    let size = header.value.length;
    for (const [whole, name] of header.value.matchAll(REFERENCE))
      size += (values.get(name ?? "") ?? "").length - whole.length;
    if (size > MAX_RESOLVED_HEADER_CHARS)
      return Either.left(
        new FailedPrecondition({
          detail: `header '${header.key}' would be ${size} characters after resolving its variables, more than ${MAX_RESOLVED_HEADER_CHARS}`,
          references: [],
        }),
      );
  }
  const resolved = headers.map(
    (header) => [header.key, header.value.replace(REFERENCE, (_, name: string) => values.get(name) ?? "")] as const,
  );
  for (const [key, value] of resolved)
    if (/[\r\n\0]/.test(value))
      return Either.left(
        new FailedPrecondition({
          detail: `header '${key}' would contain a line break after resolving its variables`,
          references: [],
        }),
      );
  return Either.right(resolved);
};

/** Incoming MCP request headers that are never forwarded upstream, even with header forwarding on. */
const NOT_FORWARDED = new Set([
  // the client's credentials and the MCP endpoint's own identity
  "authorization",
  "cookie",
  "host",
  // hop-by-hop (RFC 9110 §7.6.1) and framing: they describe the client's connection, not the upstream one
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "content-length",
  "expect",
  // the service reads the upstream body itself and does not decode compressed ones
  "accept-encoding",
]);

/**
 * The headers of an MCP request that a server with `requestHeadersProxyEnabled` forwards upstream: all but
 * credentials (Authorization, Cookie), Host, hop-by-hop and framing headers, Accept-Encoding, the headers a
 * `Connection` header names, and the MCP transport's own `Mcp-*` headers.
 */
export const forwardableHeaders = (
  incoming: Iterable<readonly [string, string]>,
): ReadonlyArray<readonly [string, string]> => {
  const entries = [...incoming].map(([k, v]) => [k.toLowerCase(), v] as const);
  const named = new Set(
    entries
      .filter(([k]) => k === "connection")
      .flatMap(([, v]) => v.split(","))
      .map((t) => t.trim().toLowerCase()),
  );
  return entries.filter(([k]) => !NOT_FORWARDED.has(k) && !named.has(k) && !k.startsWith("mcp-"));
};
