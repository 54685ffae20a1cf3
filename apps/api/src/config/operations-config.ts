import { Config, Option } from "effect";

const optionalText = (name: string) =>
  Config.option(Config.nonEmptyString(name)).pipe(Config.map(Option.getOrUndefined));

/** Metrics, traces and the audit trail (docs/api-rules.md §18). */
export interface OperationsSettings {
  /**
   * Port of the Prometheus `/metrics` listener on HOST; undefined: no listener (METRICS_PORT=0). A port of 0
   * here picks a free port (tests).
   */
  readonly metricsPort: number | undefined;
  /** Audit events older than this many days are pruned in the background. */
  readonly auditRetentionDays: number;
  /** Tool calls older than this many days are pruned in the background (CALL_LOG_RETENTION_DAYS, default 30). */
  readonly callLogRetentionDays?: number | undefined;
  /** Servers whose calls keep their arguments, masked (CALL_LOG_CAPTURE_ARGUMENTS: server ids). */
  readonly callLogCaptureArguments?: ReadonlyArray<string> | undefined;
  /**
   * The OTLP/HTTP traces URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT +
   * `/v1/traces`); undefined (also with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none): no tracing.
   */
  readonly tracesUrl?: string | undefined;
  /** OTEL_SERVICE_NAME (default mcp-server-manager). */
  readonly serviceName?: string | undefined;
}

/** For a configuration built in code without these settings: no metrics listener, 90 days of audit. */
export const DEFAULT_OPERATIONS_SETTINGS: OperationsSettings = { metricsPort: undefined, auditRetentionDays: 90 };

/** METRICS_PORT (default 9464) and AUDIT_RETENTION_DAYS (default 90). Tracing reads the OTEL_* variables itself. */
export const operationsConfig: Config.Config<OperationsSettings> = Config.all({
  metricsPort: Config.integer("METRICS_PORT").pipe(
    Config.validate({
      message: "must be a port number from 0 (off) to 65535",
      validation: (n) => n >= 0 && n <= 65535,
    }),
    Config.withDefault(9464),
    Config.map((port) => (port === 0 ? undefined : port)),
  ),
  auditRetentionDays: Config.integer("AUDIT_RETENTION_DAYS").pipe(
    Config.validate({ message: "must be a whole number of days, at least 1", validation: (n) => n >= 1 }),
    Config.withDefault(DEFAULT_OPERATIONS_SETTINGS.auditRetentionDays),
  ),
  callLogRetentionDays: Config.integer("CALL_LOG_RETENTION_DAYS").pipe(
    Config.validate({ message: "must be a whole number of days, at least 1", validation: (n) => n >= 1 }),
    Config.withDefault(30),
  ),
  callLogCaptureArguments: optionalText("CALL_LOG_CAPTURE_ARGUMENTS").pipe(
    Config.map((text) => (text ?? "").split(/[\s,]+/).filter((id) => id !== "")),
  ),
  // The standard switches apply: OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none, turn tracing off.
  tracesUrl: Config.all([
    optionalText("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
    optionalText("OTEL_EXPORTER_OTLP_ENDPOINT"),
    optionalText("OTEL_SDK_DISABLED"),
    optionalText("OTEL_TRACES_EXPORTER"),
  ]).pipe(
    Config.map(([traces, base, disabled, exporter]) =>
      disabled?.trim().toLowerCase() === "true" || exporter?.trim().toLowerCase() === "none"
        ? undefined
        : (traces ?? (base === undefined ? undefined : `${base.replace(/\/+$/, "")}/v1/traces`)),
    ),
  ),
  serviceName: optionalText("OTEL_SERVICE_NAME"),
});
