import { Schema } from "effect";

/** Why `value` is not an acceptable absolute http(s) URL, or undefined when it is. */
export const httpUrlProblem = (value: string): string | undefined => {
  if (value.length > 2048) return "must be at most 2048 characters";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute http(s) URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use the http or https scheme";
  if (url.username !== "" || url.password !== "") return "must not carry credentials";
  if (url.hostname === "") return "must name a host";
  return undefined;
};

/** The JSON Schema of an acceptable URL (what `httpUrlProblem` checks, as far as JSON Schema can say it). */
const HTTP_URL_JSON_SCHEMA = {
  format: "uri",
  pattern: "^[Hh][Tt][Tt][Pp][Ss]?://[^@/?#:][^@/?#]*(?:[/?#]|$)",
  maxLength: 2048,
};

/** An absolute http(s) URL without credentials. */
export const HttpUrl = Schema.String.pipe(
  Schema.filter((s) => httpUrlProblem(s) ?? true, {
    jsonSchema: { ...HTTP_URL_JSON_SCHEMA, description: "absolute http(s) URL without credentials" },
  }),
  Schema.annotations({ description: "absolute http(s) URL" }),
);

/** An absolute http(s) URL, or "" for none. */
export const OptionalHttpUrl = Schema.String.pipe(
  Schema.filter((s) => (s === "" ? true : (httpUrlProblem(s) ?? true)), {
    jsonSchema: {
      type: "string",
      anyOf: [{ const: "" }, HTTP_URL_JSON_SCHEMA],
      description: 'absolute http(s) URL without credentials, or "" for none',
    },
  }),
  Schema.annotations({ description: 'absolute http(s) URL, or "" for none' }),
);
