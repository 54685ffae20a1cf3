import { Either } from "effect";
import { FailedPrecondition, PermissionDenied } from "../errors/domain-errors.js";
import type { ToolHeader } from "../tool/tool-schema.js";
import { MAX_RESOLVED_HEADER_CHARS } from "./expansion-limits.js";

// Tool header values may reference the owner's variables as `${NAME}` (docs/api-rules.md §9). Only names made for
// the provider's upstream resolve: they must start with the provider's secretPrefix and `_`, so a PUBLIC
// provider written by another tenant can never read a variable that was not made for its upstream.

// Every `${…}` is a reference, whatever it holds: one whose name could never be a variable's (`${127_KEY}`,
// `${}`, `${A-B}`) or that is never closed is refused like a name outside the prefix, so no template is ever
// sent upstream as written.
const REFERENCE = /\$\{([^}]*)\}/g;
const UNCLOSED = /\$\{[^}]*$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The variable names a set of header values references, in first-use order (`${` never closed counts as `${…`). */
export const referencedVariables = (headers: ReadonlyArray<ToolHeader>): ReadonlyArray<string> => {
  const names = new Set<string>();
  for (const header of headers) {
    for (const match of header.value.matchAll(REFERENCE)) names.add(match[1] ?? "");
    const unclosed = UNCLOSED.exec(header.value.replace(REFERENCE, ""));
    if (unclosed !== null) names.add(`${unclosed[0].slice(2)}…`);
  }
  return [...names];
};

/**
 * True when `text` (a base URL, a tool path, a resource URI) holds what looks like a `${NAME}` reference, as
 * written or percent-encoded. Only header values resolve variables, so such a request is never sent: the
 * upstream would receive the template itself.
 */
export const holdsVariableReference = (text: string): boolean => /\$(?:\{|%7B)/i.test(text);

/** True when a tool of a provider with `secretPrefix` may read the variable `name`. */
export const mayReadVariable = (secretPrefix: string, name: string): boolean =>
  VARIABLE_NAME.test(name) &&
  secretPrefix !== "" &&
  name.startsWith(`${secretPrefix}_`) &&
  name.length > secretPrefix.length + 1;

/** The referenced names a provider may not read (checked before any variable is looked up). */
export const refusedVariables = (secretPrefix: string, names: ReadonlyArray<string>): ReadonlyArray<string> =>
  names.filter((name) => !mayReadVariable(secretPrefix, name));

/** Resolved headers, or why they cannot be: a refused name, a missing variable, a value that breaks a header. */
export type HeaderResolution = Either.Either<
  ReadonlyArray<readonly [string, string]>,
  PermissionDenied | FailedPrecondition
>;

/** A reference as the header wrote it (an unclosed one is shown without its brace). */
const shown = (name: string) => (name.endsWith("…") ? `\${${name}` : `\${${name}}`);

/** PermissionDenied naming the referenced names the provider may not read, if any. */
export const refusedVariablesError = (secretPrefix: string, names: ReadonlyArray<string>) => {
  const refused = refusedVariables(secretPrefix, names);
  return refused.length === 0
    ? undefined
    : new PermissionDenied({
        detail: `header variable${refused.length > 1 ? "s" : ""} ${refused.map(shown).join(", ")} refused: a tool of this provider may only use variables whose name starts with '${secretPrefix}_'${refused.some((n) => !VARIABLE_NAME.test(n)) ? " (a variable name is letters, digits and _, not starting with a digit)" : ""}`,
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
