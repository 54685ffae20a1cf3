import { parentPort } from "node:worker_threads";
import { InvalidArgument } from "@mcpsm/domain";
import { type ApiDescription, DocumentJson } from "@mcpsm/domain/openapi-import";
import { readDescription, readDescriptionValue } from "../read-description.js";
import { MAX_DOCUMENT_BYTES } from "../read-text.js";
import type { ReaderReply, ReaderRequest } from "./reader-protocol.js";
import { boundedDescription } from "./description-transport.js";
import { READY } from "./worker-pool.js";

// The body of a reader worker (worker-pool.ts): reads one description per message, off the service's event
// loop and under the worker's memory limits, and answers with the description bounded in size.

const read = async (request: ReaderRequest): Promise<ApiDescription | ReaderReply> => {
  switch (request.kind) {
    case "text":
      return readDescription(request.text, request.root);
    case "json":
      return readDescription(new DocumentJson(request.bytes, request.members), request.root);
    case "object": {
      // The object a caller in the service's process sent, written as compact JSON: measured as that text.
      const bytes = Buffer.byteLength(request.text, "utf8");
      if (bytes > MAX_DOCUMENT_BYTES)
        return {
          ok: false,
          problems: [
            {
              path: request.root,
              message: `is ${(bytes / 1024 / 1024).toFixed(1)} MiB; a description may be at most ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB`,
            },
          ],
        };
      return readDescriptionValue(JSON.parse(request.text), request.root);
    }
  }
};

const answer = async (request: ReaderRequest): Promise<ReaderReply> => {
  try {
    const description = await read(request);
    if ("ok" in description) return description;
    const sent = boundedDescription(description, request.root);
    return sent.ok ? { ok: true, description: sent.description } : { ok: false, problems: sent.problems };
  } catch (error) {
    if (error instanceof InvalidArgument) return { ok: false, problems: [...error.errors], detail: error.detail };
    if (error instanceof RangeError)
      return { ok: false, problems: [{ path: request.root, message: "is nested too deeply to be read" }] };
    return { ok: false, crashed: error instanceof Error ? error.message : String(error), problems: [] };
  }
};

parentPort?.on("message", (request: ReaderRequest) => {
  void answer(request).then((reply) => parentPort?.postMessage(reply));
});
// Modules loaded: the pool starts a job's clock from here.
parentPort?.postMessage(READY);
