import { InvalidArgument } from "@mcpsm/domain/errors";
import type { DescriptionFetcher } from "@mcpsm/domain/openapi-import";
import { type policyAgent, policyFetch } from "@mcpsm/mcp-runtime";
import { Effect } from "effect";

// The adapter of the domain's DescriptionFetcher port, for `import.url` (docs/api-rules.md §15, an extension of
// this service): the service fetches the description itself, under the upstream address policy (the
// dispatcher), the upstream deadline and the 10 MiB cap of a description, with no credentials, following at
// most MAX_REDIRECTS redirects, each one through the same policy. Every failure is a 400 naming `import.url`.

const PATH = "import.url";
const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS = 5;

const refused = (message: string) =>
  new InvalidArgument({ detail: `${PATH}: ${message}`, errors: [{ path: PATH, message }] });

/** Why `text` is not an http(s) URL without credentials, or undefined. */
const urlProblem = (url: URL | undefined): string | undefined => {
  if (url === undefined) return "must be an absolute http or https URL";
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL";
  if (url.username !== "" || url.password !== "") return "must not carry credentials";
  return undefined;
};

const parse = (text: string, base?: URL): URL | undefined => {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
};

/** A fetcher through `dispatcher` (the upstream policy agent) with the upstream deadline `timeoutMs`. */
export const policyDescriptionFetcher = (
  dispatcher: ReturnType<typeof policyAgent>,
  timeoutMs: number,
): typeof DescriptionFetcher.Service => {
  const get = policyFetch(dispatcher, { timeoutMs, maxResponseBytes: MAX_DOCUMENT_BYTES });
  const fetchText = async (start: URL): Promise<string> => {
    let url = start;
    for (let hop = 0; ; hop++) {
      let response: Response;
      try {
        response = await get(url, { headers: { accept: "application/json, application/yaml, text/yaml, */*" } });
      } catch (error) {
        const message = error instanceof Error ? error.message : "could not be fetched";
        throw refused(message.startsWith("the answer is larger") ? "the description is larger than 10 MiB" : message);
      }
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        if (hop >= MAX_REDIRECTS) throw refused(`more than ${MAX_REDIRECTS} redirects`);
        const next = parse(response.headers.get("location") ?? "", url);
        const problem = urlProblem(next);
        if (problem !== undefined || next === undefined) throw refused(`redirects to a URL that ${problem}`);
        url = next;
        continue;
      }
      if (response.status !== 200) throw refused(`${url.host} answered ${response.status}, not a description`);
      return response.text();
    }
  };
  return {
    fetch: (text) => {
      const url = parse(text);
      const problem = urlProblem(url);
      if (problem !== undefined || url === undefined) return Effect.fail(refused(problem ?? "is not a URL"));
      return Effect.tryPromise({
        try: () => fetchText(url),
        catch: (error) => (error instanceof InvalidArgument ? error : refused("could not be fetched")),
      });
    },
  };
};
