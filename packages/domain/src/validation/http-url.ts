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

/** An absolute http(s) URL without credentials. */
export const HttpUrl = Schema.String.pipe(
  Schema.filter((s) => httpUrlProblem(s) ?? true),
  Schema.annotations({ format: "uri", description: "absolute http(s) URL" } as Record<string, unknown>),
);

/** An absolute http(s) URL, or "" for none. */
export const OptionalHttpUrl = Schema.String.pipe(
  Schema.filter((s) => (s === "" ? true : (httpUrlProblem(s) ?? true))),
  Schema.annotations({ description: 'absolute http(s) URL, or "" for none' }),
);
