import { Config, ConfigError, Either, Option } from "effect";
import { parseCidrs } from "@mcpsm/upstream-http";

// The MCP endpoint's settings, read from the environment with effect's Config (so the service reports
// every bad value at start-up together with its own).

export interface McpSettings {
  /** Public base URL of the service (`https://mcp.example.com`); the canonical URL of a server is `<base>/mcp/<id>`. Defaults to the listening URL. */
  readonly publicUrl: Option.Option<URL>;
  /** Host names (no port) accepted in `Host`; defaults to the public URL's host (and localhost names when it is local). */
  readonly allowedHosts: Option.Option<ReadonlyArray<string>>;
  /** Origin host names accepted in `Origin` (requests without Origin always pass); same default as hosts. */
  readonly allowedOrigins: Option.Option<ReadonlyArray<string>>;
  /** CIDRs upstream calls may reach even though they are special-purpose (loopback, private, ...). */
  readonly upstreamAllowedNetworks: ReadonlyArray<string>;
  readonly upstreamTimeoutMs: number;
  readonly upstreamMaxResponseBytes: number;
  /** Authorization servers advertised in the protected resource metadata; defaults to AUTH_ISSUER. */
  readonly authorizationServers: Option.Option<ReadonlyArray<string>>;
  /** The shortest wait between two looks at an upstream operation's status URL (docs/api-rules.md §22). */
  readonly upstreamPollIntervalMs: number;
  /** How long a task follows an upstream operation before it gives up. */
  readonly upstreamOperationDeadlineMs: number;
  /** How long a 2025-11-25 call (or one without the tasks extension) follows it inside the call. */
  readonly upstreamCallDeadlineMs: number;
  /** The memory budget of the compiled-server cache, in MiB (compiled-cache.ts; an estimate, not a measure). */
  readonly compiledCacheMiB: number;
  /**
   * The most admissions the MCP gate keeps (auth/admission-memo.ts), one per server and token called: at
   * ~0.3 KB each (the compiled server is held weakly), 16,384 is ~5 MiB.
   */
  readonly admissionMemoEntries: number;
}

const list = (name: string) =>
  Config.option(
    Config.string(name).pipe(
      Config.map((value) =>
        value
          .split(",")
          .map((item) => item.trim())
          .filter((item) => item !== ""),
      ),
    ),
  );

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a whole number of at least 1", validation: (n) => n >= 1 }),
    Config.withDefault(fallback),
  );

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;
export const DEFAULT_UPSTREAM_MAX_RESPONSE_BYTES = 1024 * 1024;
export const DEFAULT_UPSTREAM_POLL_INTERVAL_MS = 2_000;
export const DEFAULT_UPSTREAM_OPERATION_DEADLINE_MS = 15 * 60_000;
export const DEFAULT_UPSTREAM_CALL_DEADLINE_MS = 50_000;
export const DEFAULT_COMPILED_CACHE_MIB = 128;
/** One caller of each of 10,000 servers called round-robin fits, with room. */
export const DEFAULT_ADMISSION_MEMO_ENTRIES = 16_384;

/** MCP_PUBLIC_URL, MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS, UPSTREAM_ALLOWED_NETWORKS, UPSTREAM_TIMEOUT_MS, UPSTREAM_MAX_RESPONSE_BYTES, MCP_AUTHORIZATION_SERVERS, UPSTREAM_POLL_INTERVAL_MS,
 * UPSTREAM_OPERATION_DEADLINE_MS, UPSTREAM_CALL_DEADLINE_MS, MCP_COMPILED_CACHE_MIB, MCP_ADMISSION_MEMO_ENTRIES. */
export const mcpSettingsConfig: Config.Config<McpSettings> = Config.all({
  publicUrl: Config.option(
    Config.string("MCP_PUBLIC_URL").pipe(
      Config.mapOrFail((value) => {
        try {
          const url = new URL(value);
          if ((url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === "")
            return Either.right(url);
        } catch {}
        return Either.left(
          ConfigError.InvalidData(["MCP_PUBLIC_URL"], "must be an absolute http(s) URL without query or fragment"),
        );
      }),
    ),
  ),
  allowedHosts: list("MCP_ALLOWED_HOSTS"),
  allowedOrigins: list("MCP_ALLOWED_ORIGINS"),
  upstreamAllowedNetworks: list("UPSTREAM_ALLOWED_NETWORKS").pipe(
    Config.map(Option.getOrElse(() => [] as ReadonlyArray<string>)),
    Config.mapOrFail((cidrs) => {
      try {
        parseCidrs(cidrs);
        return Either.right(cidrs);
      } catch {
        return Either.left(
          ConfigError.InvalidData(
            ["UPSTREAM_ALLOWED_NETWORKS"],
            "must be comma-separated CIDRs such as 127.0.0.0/8,::1/128",
          ),
        );
      }
    }),
  ),
  upstreamTimeoutMs: positive("UPSTREAM_TIMEOUT_MS", DEFAULT_UPSTREAM_TIMEOUT_MS),
  upstreamMaxResponseBytes: positive("UPSTREAM_MAX_RESPONSE_BYTES", DEFAULT_UPSTREAM_MAX_RESPONSE_BYTES),
  authorizationServers: list("MCP_AUTHORIZATION_SERVERS"),
  upstreamPollIntervalMs: positive("UPSTREAM_POLL_INTERVAL_MS", DEFAULT_UPSTREAM_POLL_INTERVAL_MS),
  upstreamOperationDeadlineMs: positive("UPSTREAM_OPERATION_DEADLINE_MS", DEFAULT_UPSTREAM_OPERATION_DEADLINE_MS),
  upstreamCallDeadlineMs: positive("UPSTREAM_CALL_DEADLINE_MS", DEFAULT_UPSTREAM_CALL_DEADLINE_MS),
  compiledCacheMiB: positive("MCP_COMPILED_CACHE_MIB", DEFAULT_COMPILED_CACHE_MIB),
  admissionMemoEntries: positive("MCP_ADMISSION_MEMO_ENTRIES", DEFAULT_ADMISSION_MEMO_ENTRIES),
});

/** Settings with every default (for tests and embedding). */
export const defaultMcpSettings = (overrides: Partial<McpSettings> = {}): McpSettings => ({
  publicUrl: Option.none(),
  allowedHosts: Option.none(),
  allowedOrigins: Option.none(),
  upstreamAllowedNetworks: [],
  upstreamTimeoutMs: DEFAULT_UPSTREAM_TIMEOUT_MS,
  upstreamMaxResponseBytes: DEFAULT_UPSTREAM_MAX_RESPONSE_BYTES,
  authorizationServers: Option.none(),
  upstreamPollIntervalMs: DEFAULT_UPSTREAM_POLL_INTERVAL_MS,
  upstreamOperationDeadlineMs: DEFAULT_UPSTREAM_OPERATION_DEADLINE_MS,
  upstreamCallDeadlineMs: DEFAULT_UPSTREAM_CALL_DEADLINE_MS,
  compiledCacheMiB: DEFAULT_COMPILED_CACHE_MIB,
  admissionMemoEntries: DEFAULT_ADMISSION_MEMO_ENTRIES,
  ...overrides,
});
