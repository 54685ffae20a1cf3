import { Cause, Effect, Exit, FiberRef } from "effect";

// A hook on every SQL statement the adapter sends, for tracing (a span per statement, docs/api-rules.md §18).
// The observer is carried by the fiber that runs the storage operation, not by the store: effect's fibers do
// not reliably see Node's AsyncLocalStorage, so whoever runs a use case sets the observer for that run
// (`Effect.locally(currentStatementObserver, ...)`) with the parent span it knows, and every fiber the run
// forks inherits it. Unset (the default) it costs one fiber-ref read per statement.

/** One statement as it is sent: its text (with `$n` placeholders: never a parameter value) and its server. */
export interface ObservedStatement {
  readonly text: string;
  /** The database name. */
  readonly database: string;
  readonly host: string;
  readonly port: number;
}

/** Called as a statement is sent; answers what to call once it is answered (with the error, if it failed). */
export type StatementObserver = (statement: ObservedStatement) => (error?: unknown) => void;

/** The observer of the statements the current fiber (and the fibers it forks) sends; none by default. */
export const currentStatementObserver: FiberRef.FiberRef<StatementObserver | undefined> = FiberRef.unsafeMake<
  StatementObserver | undefined
>(undefined);

/** Where statements go, from the connection URL (what an observer reports; never the credentials). */
export const statementTarget = (url: string): Omit<ObservedStatement, "text"> => {
  const parsed = new URL(url);
  return {
    database: decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "postgres",
    host: parsed.hostname.replace(/^\[|\]$/g, ""),
    port: Number(parsed.port || 5432),
  };
};

/** `send`, reported to the current fiber's statement observer (if any) as the statement `text`. */
export const observed = <A, E, R>(
  target: Omit<ObservedStatement, "text">,
  text: string,
  send: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  FiberRef.getWith(currentStatementObserver, (observe) =>
    observe === undefined
      ? send
      : Effect.suspend(() => {
          const done = observe({ text, ...target });
          return Effect.onExit(send, (exit) =>
            Effect.sync(() => done(Exit.isSuccess(exit) ? undefined : Cause.squash(exit.cause))),
          );
        }),
  );

/**
 * `send` of several statements in one round trip, reported as each of `texts` in order: all start as it is
 * sent and end, in the same order, with its outcome.
 */
export const observedAll = <A, E, R>(
  target: Omit<ObservedStatement, "text">,
  texts: ReadonlyArray<string>,
  send: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  FiberRef.getWith(currentStatementObserver, (observe) =>
    observe === undefined
      ? send
      : Effect.suspend(() => {
          const done = texts.map((text) => observe({ text, ...target }));
          return Effect.onExit(send, (exit) =>
            Effect.sync(() => {
              const error = Exit.isSuccess(exit) ? undefined : Cause.squash(exit.cause);
              for (const end of done) end(error);
            }),
          );
        }),
  );
