import { stringify } from "yaml";

// The Sprig and Helm template functions the chart uses, with Helm's semantics, for the Go text/template
// implementation that renders the chart in CI (helm-render.ts). A function the chart uses that is not here
// fails the render ("function not defined"), so the chart cannot drift into untested functions.

/** Go's notion of an empty value (Sprig `default`, `empty`). */
const empty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === false ||
  value === "" ||
  value === 0 ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0);

const indentLines = (spaces: number, text: string) =>
  String(text)
    .split("\n")
    .map((line) => " ".repeat(spaces) + line)
    .join("\n");

/** Go's %q for the strings a chart quotes (Sprig `quote` is fmt.Sprintf("%q", str) per argument). */
const goQuote = (value: unknown) => JSON.stringify(value === undefined || value === null ? "" : String(value));

/** A template function: Go templates call it with whatever values the pipeline holds. */
// biome-ignore lint/suspicious/noExplicitAny: template arguments are untyped, as in Go's text/template
type TemplateFunction = (...args: Array<any>) => unknown;

export const helmFunctions = (
  include: (name: string, data: unknown) => Promise<string>,
): ReadonlyArray<readonly [string, TemplateFunction]> => [
  ["include", include],
  ["indent", (spaces: number, text: string) => indentLines(spaces, text)],
  ["nindent", (spaces: number, text: string) => `\n${indentLines(spaces, text)}`],
  // Helm's toYaml: yaml.Marshal, trailing newline trimmed.
  ["toYaml", (value: unknown) => (value === undefined || value === null ? "" : stringify(value).replace(/\n$/, ""))],
  ["quote", (...values: Array<unknown>) => values.map(goQuote).join(" ")],
  ["default", (fallback: unknown, value?: unknown) => (empty(value) ? fallback : value)],
  [
    "required",
    (message: string, value: unknown) => {
      if (value === undefined || value === null || value === "") throw new Error(message);
      return value;
    },
  ],
  ["contains", (part: string, text: string) => String(text).includes(String(part))],
  ["b64enc", (text: string) => Buffer.from(String(text), "utf8").toString("base64")],
  ["trunc", (length: number, text: string) => String(text).slice(0, length)],
  [
    "trimSuffix",
    (suffix: string, text: string) =>
      String(text).endsWith(suffix) ? String(text).slice(0, -suffix.length) : String(text),
  ],
];
