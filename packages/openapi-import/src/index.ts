/**
 * @mcpsm/openapi-import: reads OpenAPI descriptions (Swagger 2.0, OpenAPI 3.0.x and 3.1.x; JSON or YAML) for the
 * domain's import use cases, as an `OpenApiReader` layer. The mapping rules live in @mcpsm/domain.
 */
import { InvalidArgument } from "@mcpsm/domain";
import { OpenApiReader } from "@mcpsm/domain/openapi-import";
import { Effect, Layer } from "effect";
import { readDescription } from "./read-description.js";

export { MAX_DOCUMENT_BYTES } from "./read-text.js";
export { readDescription } from "./read-description.js";
export { SchemaExpander } from "./schema-expansion.js";
export {
  DEFAULT_WORKER_READER_OPTIONS,
  makeWorkerReader,
  type WorkerReaderOptions,
  workerReaderLayer,
} from "./worker/worker-reader.js";

/** The OpenApiReader of the service. */
export const openApiReader: typeof OpenApiReader.Service = {
  read: (document, root) =>
    Effect.tryPromise({
      try: () => readDescription(document, root),
      catch: (error) => error,
    }).pipe(Effect.catchAll((error) => (error instanceof InvalidArgument ? Effect.fail(error) : Effect.die(error)))),
};

/** A layer providing the OpenApiReader. */
export const openApiReaderLayer = Layer.succeed(OpenApiReader, openApiReader);
