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
// A first read of each kind compiles the reader's code before the pool starts a job's clock, so a deadline
// measures the document and not a fresh worker's warm-up (a worker is new after every overrun, and its first
// read of even a tiny description took over 100 ms on a loaded machine). Bounded by the pool's start-up limit.
const WARM_UP = {
  openapi: "3.0.3",
  info: { title: "warm-up", version: "1" },
  paths: {
    "/things/{id}": {
      get: {
        operationId: "getThing",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } },
          },
        },
      },
    },
  },
};
await answer({ kind: "object", text: JSON.stringify(WARM_UP), root: "warm-up" });
await answer({
  kind: "text",
  text: `openapi: 3.0.3\ninfo: {title: warm-up, version: "1"}\npaths: {}\n`,
  root: "warm-up",
});
// Modules loaded and warm: the pool starts a job's clock from here.
parentPort?.postMessage(READY);
