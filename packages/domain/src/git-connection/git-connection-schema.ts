import { Schema } from "effect";
import { Id } from "../ids/id.js";
import { HttpUrl } from "../validation/http-url.js";
import { optional } from "../validation/optional-field.js";
import { Name, Timestamp } from "../validation/text.js";

// Git connections (docs/api-rules.md §17): where a server's configuration is pushed, and the state of that
// push as `GET /servers/{id}/git-sync` shows it.

/** The kinds of git host; the kind gives the default base URL and the HTTP user name a token goes with. */
export const GitConnectionKind = Schema.Literal("GITHUB", "GITLAB", "GENERIC");
export type GitConnectionKind = typeof GitConnectionKind.Type;

/** The base URL of a kind when the write gives none (GENERIC has none: it must be given). */
export const DEFAULT_GIT_BASE_URLS: Readonly<Record<GitConnectionKind, string | undefined>> = {
  GITHUB: "https://github.com",
  GITLAB: "https://gitlab.com",
  GENERIC: undefined,
};

/** A token or user name: printable, no whitespace or control characters, at most 4096 characters. */
const Credential = (max: number) =>
  Schema.String.pipe(
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` }),
    Schema.filter((s) => (/^[\x21-\x7e]*$/.test(s) ? true : "must hold printable ASCII characters only, no spaces")),
  );

/** Write shape of a git connection. `token` is write-only: stored encrypted, never returned. */
export const GitConnectionCreate = Schema.Struct({
  name: Name,
  kind: GitConnectionKind,
  baseURL: optional(HttpUrl),
  username: optional(Credential(256)),
  token: Credential(4096).pipe(Schema.minLength(1, { message: () => "must not be empty" })),
}).annotations({ identifier: "GitConnectionCreate" });
export type GitConnectionCreate = typeof GitConnectionCreate.Type;

/** Output-only fields ignored in writes. */
export const GIT_CONNECTION_OUTPUT_FIELDS = ["id", "createdAt", "updatedAt"] as const;

/** A git connection as returned by the API (never its token). */
export const GitConnectionRecord = Schema.Struct({
  id: Id,
  name: Schema.String,
  kind: GitConnectionKind,
  baseURL: Schema.String,
  username: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp,
}).annotations({ identifier: "GitConnection" });
export type GitConnectionRecord = typeof GitConnectionRecord.Type;

/**
 * A repository path on the git host: `owner/repo` (GitLab subgroups `group/sub/repo` too), each segment of
 * letters, digits, `.`, `_`, `-`, not `.` or `..`, at most 200 characters; "" in a server write disconnects.
 */
export const GitRepoFullName = Schema.String.pipe(
  Schema.maxLength(200, { message: () => "must be at most 200 characters" }),
  Schema.filter(
    (s) =>
      s === "" ||
      (/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/.test(s) &&
        s.split("/").every((segment) => segment !== "." && segment !== "..") &&
        !s.endsWith(".git")) ||
      'must be "owner/repo" (letters, digits, ".", "_", "-"; without ".git"), or "" for none',
    { jsonSchema: { pattern: "^$|^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+$", maxLength: 200 } },
  ),
);

/** Where a server's last push stands. */
export const GitSyncState = Schema.Literal("SYNCED", "PENDING", "FAILED", "OFF");
export type GitSyncState = typeof GitSyncState.Type;

/** The body of `GET /servers/{id}/git-sync`. */
export const GitSyncRecord = Schema.Struct({
  state: GitSyncState.annotations({
    description:
      "OFF: no git connection; PENDING: a change waits to be pushed; SYNCED: the repository holds the current state; FAILED: the last push failed (see error; it is retried)",
  }),
  commit: Schema.String.annotations({ description: 'the id of the last commit pushed; "" when none' }),
  pushedAt: Schema.String.annotations({ description: 'when it was pushed (RFC 3339); "" when never' }),
  error: Schema.String.annotations({ description: 'why the last attempt failed; "" when it did not' }),
}).annotations({ identifier: "GitSync" });
export type GitSyncRecord = typeof GitSyncRecord.Type;
