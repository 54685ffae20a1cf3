// Every secret the HTTP suite plants (client secrets, git tokens and SECRET variable values it writes, server token values
// once their create response arrived, the access tokens it sends) is remembered here, and every later answer
// the harness receives, and every log line a test service wrote, is searched for all of them. A hit fails the
// request (or the service's close) naming the kind of secret, never the secret itself. The registry lives per
// test file (vitest isolates modules per file), so each file checks everything it planted.

export type SecretKind =
  | "client secret"
  | "SECRET variable value"
  | "server token"
  | "access token"
  | "upstream access token"
  | "upstream refresh token"
  | "git token"
  | "caller value";

const planted = new Map<string, SecretKind>();
/** Ids of SECRET variables, so a PATCH of their value is a planted secret too. */
const secretVariables = new Set<string>();

/** Values too short or too uniform would match by chance (e.g. "x".repeat(5000) used as a filler). */
const distinctive = (value: string) => value.length >= 12 && new Set(value).size >= 6;

export const plant = (value: unknown, kind: SecretKind): void => {
  if (typeof value === "string" && distinctive(value)) planted.set(value, kind);
};

/** How many secrets are being watched (tests assert the detector is armed). */
export const plantedCount = (): number => planted.size;

/** The kinds of planted secret that occur in `text`. */
export const leakedIn = (text: string): ReadonlyArray<SecretKind> => {
  const kinds = new Set<SecretKind>();
  for (const [value, kind] of planted) if (text.includes(value)) kinds.add(kind);
  return [...kinds];
};

// biome-ignore lint/suspicious/noExplicitAny: request and response bodies are free-form JSON
type Json = any;

/** Bodies nested deeper than the service reads (64) are refused before anything is stored. */
const walkClientSecrets = (node: Json, depth = 0): void => {
  if (depth > 70) return;
  if (Array.isArray(node)) for (const item of node) walkClientSecrets(item, depth + 1);
  else if (typeof node === "object" && node !== null)
    for (const [key, value] of Object.entries(node)) {
      if (key === "clientSecret") plant(value, "client secret");
      else walkClientSecrets(value, depth + 1);
    }
};

/** Records the secrets a request is about to send. */
export const plantFromRequest = (method: string, path: string, token: string | undefined, sent: Json): void => {
  if (token !== undefined) plant(token, "access token");
  let body = sent;
  if (typeof sent === "string")
    try {
      body = JSON.parse(sent);
    } catch {
      return;
    }
  if (typeof body !== "object" || body === null) return;
  walkClientSecrets(body);
  // A git connection's token is write-only (docs/api-rules.md §17).
  if (typeof body.gitConnection === "object" && body.gitConnection !== null)
    plant(body.gitConnection.token, "git token");
  const variable = body.variable;
  if (typeof variable !== "object" || variable === null) return;
  if (method === "POST" && path === "/variables" && variable.type === "SECRET")
    plant(variable.value, "SECRET variable value");
  const id = /^\/variables\/([A-Za-z0-9]{11})$/.exec(path)?.[1];
  if (method === "PATCH" && id !== undefined && secretVariables.has(id)) plant(variable.value, "SECRET variable value");
};

/** Records what an answer reveals that later answers must not: a token's value, a SECRET variable's id. */
export const plantFromResponse = (method: string, path: string, status: number, body: Json): void => {
  if (status !== 201 || method !== "POST" || typeof body !== "object" || body === null) return;
  if (/^\/servers\/[A-Za-z0-9]{11}\/tokens$/.test(path)) plant(body.token?.value, "server token");
  if (path === "/variables" && body.variable?.type === "SECRET") secretVariables.add(String(body.variable.id));
};
