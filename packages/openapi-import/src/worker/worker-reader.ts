import { availableParallelism } from "node:os";
import { InvalidArgument, ResourceExhausted } from "@mcpsm/domain";
import { type ApiDescription, DocumentJson, OpenApiReader } from "@mcpsm/domain/openapi-import";
import { Effect, Layer } from "effect";
import type { ReaderReply, ReaderRequest } from "./reader-protocol.js";
import { WorkerPool } from "./worker-pool.js";

// The service's OpenApiReader: every description is read in a worker thread (worker-pool.ts), so parsing,
// Swagger 2.0 conversion, $ref resolution and expansion never run on the event loop that answers requests,
// and a description that needs too much time or memory ends its worker, not the service.

export interface WorkerReaderOptions {
  /** Most descriptions read at once (each in its own worker). */
  readonly workers: number;
  /** Most reads waiting for a worker; more are refused with 429. */
  readonly queue: number;
  /** Longest one read may take. */
  readonly deadlineMs: number;
  /** The heap a worker may use (its old generation), in MiB. */
  readonly memoryMb: number;
  /** How long an idle worker stays warm. */
  readonly idleMs: number;
}

export const DEFAULT_WORKER_READER_OPTIONS: WorkerReaderOptions = {
  // A core stays free for the event loop that answers every other request.
  workers: Math.max(1, Math.min(4, availableParallelism() - 1)),
  queue: 8,
  // Stripe's 4 MiB description takes 8-15 s to read on a busy 2-core machine.
  deadlineMs: 30_000,
  memoryMb: 512,
  idleMs: 5_000,
};

const refused = (root: string, message: string) =>
  new InvalidArgument({ detail: `${root}: ${message}`, errors: [{ path: root, message }] });

/**
 * The request for a document as the caller sent it: text as is, the JSON text of a request body's member as
 * is (parsed in the worker), an object as its compact JSON.
 */
const requestOf = (document: unknown, root: string): ReaderRequest | InvalidArgument => {
  if (typeof document === "string") return { kind: "text", text: document, root };
  if (document instanceof DocumentJson) return { kind: "json", bytes: document.bytes, members: document.members, root };
  if (typeof document !== "object" || document === null || Array.isArray(document))
    return refused(root, "must be an OpenAPI description: an object, or its JSON or YAML text");
  try {
    // Objects reach the service as parsed JSON bodies: a tree no larger than the body.
    return { kind: "object", text: JSON.stringify(document), root };
  } catch {
    return refused(root, "cannot be read: it is nested too deeply");
  }
};

/** An OpenApiReader reading in a pool of worker threads; `close` ends the workers. */
export const makeWorkerReader = (options: Partial<WorkerReaderOptions> = {}) => {
  const settings = { ...DEFAULT_WORKER_READER_OPTIONS, ...options };
  const pool = new WorkerPool<ReaderRequest, ReaderReply>({
    script: new URL("./reader-worker.js", import.meta.url),
    size: settings.workers,
    queue: settings.queue,
    deadlineMs: settings.deadlineMs,
    idleMs: settings.idleMs,
    resourceLimits: { maxOldGenerationSizeMb: settings.memoryMb, stackSizeMb: 4 },
  });
  const read = (document: unknown, root: string): Effect.Effect<ApiDescription, InvalidArgument | ResourceExhausted> =>
    Effect.suspend(() => {
      const request = requestOf(document, root);
      if (request instanceof InvalidArgument) return Effect.fail(request);
      return Effect.async<ReaderReply, InvalidArgument | ResourceExhausted>((resume) => {
        // A request body's bytes move to the worker rather than being copied: a DocumentJson is read once.
        const job = pool.run(request, request.kind === "json" ? [request.bytes.buffer as ArrayBuffer] : []);
        void job.outcome.then((outcome) => {
          switch (outcome.kind) {
            case "done":
              return resume(Effect.succeed(outcome.reply));
            case "deadline":
              return resume(
                Effect.fail(
                  refused(root, `could not be read within ${settings.deadlineMs / 1000} s: it is too complex`),
                ),
              );
            case "memory":
              return resume(
                Effect.fail(
                  refused(root, `could not be read within ${settings.memoryMb} MiB of memory: it is too complex`),
                ),
              );
            case "busy":
              return resume(
                Effect.fail(
                  new ResourceExhausted({
                    detail: "the service is reading as many descriptions as it can: try again shortly",
                    retryAfterSeconds: 1,
                  }),
                ),
              );
            case "unstarted":
              return resume(
                Effect.fail(
                  new ResourceExhausted({
                    detail: "the service could not start a description reader in time: try again shortly",
                    retryAfterSeconds: 5,
                  }),
                ),
              );
            case "failed":
              return resume(Effect.die(new Error(`the description reader failed: ${outcome.error}`)));
          }
        });
        return Effect.sync(job.cancel);
      }).pipe(
        Effect.flatMap((reply) => {
          if (reply.ok) return Effect.succeed(reply.description);
          if (reply.crashed !== undefined)
            return Effect.die(new Error(`the description reader failed: ${reply.crashed}`));
          const [first] = reply.problems;
          return Effect.fail(
            new InvalidArgument({
              detail:
                reply.detail ??
                (first === undefined ? "not a valid OpenAPI description" : `${first.path}: ${first.message}`),
              errors: [...reply.problems],
            }),
          );
        }),
      );
    });
  return { reader: { read } satisfies typeof OpenApiReader.Service, close: () => pool.close() };
};

/** A layer providing the worker-backed OpenApiReader; its workers end with the layer. */
export const workerReaderLayer = (options: Partial<WorkerReaderOptions> = {}) =>
  Layer.scoped(
    OpenApiReader,
    Effect.acquireRelease(
      Effect.sync(() => makeWorkerReader(options)),
      ({ close }) => Effect.promise(close),
    ).pipe(Effect.map(({ reader }) => reader)),
  );
