// A worker for worker-pool.test.ts: posts READY, then answers each message by kind: "echo" at once, "grow" by
// allocating until its heap limit ends it, "spin" by never answering.
import { parentPort } from "node:worker_threads";

parentPort.on("message", (kind) => {
  if (kind === "grow") {
    const kept = [];
    for (;;) kept.push({ n: kept.length, items: [1, 2, 3] });
  }
  if (kind === "spin") for (;;);
  parentPort.postMessage(`echo ${kind}`);
});
parentPort.postMessage("ready");
