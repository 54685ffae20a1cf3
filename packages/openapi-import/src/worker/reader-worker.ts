import { parentPort } from "node:worker_threads";
import { InvalidArgument } from "@mcpsm/domain";
import { readDescription, readDescriptionValue } from "../read-description.js";
import { MAX_DOCUMENT_BYTES } from "../read-text.js";
import type { ReaderReply, ReaderRequest } from "./reader-protocol.js";
import { transportDescription } from "./description-transport.js";
import { READY } from "./worker-pool.js";

// The body of a reader worker (worker-pool.ts): reads one description per message, off the service's event
// loop and under the worker's memory limits, and answers with the description as bounded JSON text.

const answer = async (request: ReaderRequest): Promise<ReaderReply> => {
  try {
    let description: Awaited<ReturnType<typeof readDescription>>;
    if (request.sentAsObject) {
      // The object the caller sent, written as compact JSON by the service: measured as that text.
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
      description = await readDescriptionValue(JSON.parse(request.text), request.root);
    } else description = await readDescription(request.text, request.root);
    const sent = transportDescription(description, request.root);
    return sent.ok ? { ok: true, json: sent.json } : { ok: false, problems: sent.problems };
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
