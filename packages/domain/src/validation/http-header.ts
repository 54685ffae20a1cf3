import { Schema } from "effect";

/** RFC 9110 token characters: what a header field name may consist of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Hop-by-hop and framing headers a tool may not set: the HTTP client owns them. */
export const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "http2-settings",
]);

/** A header name (letters, digits, `-`) as a regular expression of any case: `te` → `[Tt][Ee]`. */
const anyCase = (name: string): string =>
  Array.from(name, (c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join("");

/** A header field name that is an HTTP token and not a hop-by-hop or framing header. */
export const HeaderName = Schema.String.pipe(
  Schema.filter(
    (s) => {
      if (!TOKEN.test(s)) return "must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~)";
      if (s.length > 256) return "must be at most 256 characters";
      if (FORBIDDEN_HEADERS.has(s.toLowerCase())) return `'${s}' is a hop-by-hop or framing header and cannot be set`;
      return true;
    },
    {
      jsonSchema: {
        pattern: TOKEN.source,
        maxLength: 256,
        not: { pattern: `^(?:${Array.from(FORBIDDEN_HEADERS, anyCase).join("|")})$` },
        description: "an HTTP header name (RFC 9110 token), not a hop-by-hop or framing header",
      },
    },
  ),
);

/** A header field value: no CR, LF or NUL, at most 8 KiB. */
export const HeaderValue = Schema.String.pipe(
  Schema.filter(
    (s) => {
      if (/[\r\n\0]/.test(s)) return "must not contain CR, LF or NUL";
      if (s.length > 8192) return "must be at most 8192 characters";
      return true;
    },
    {
      jsonSchema: {
        pattern: "^[^\\r\\n\\u0000]*$",
        maxLength: 8192,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the syntax of a variable reference, not a template
        description: "a header value without CR, LF or NUL; may reference variables as ${NAME}",
      },
    },
  ),
);
