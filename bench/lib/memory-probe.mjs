// Preloaded into the service by the soak of bench/hot-paths.mjs (`NODE_OPTIONS=--import=<this file>`): every
// MEMORY_PROBE_MS (default 5000) it appends one JSON line with the process's own memory figures to
// MEMORY_PROBE_FILE, so the soak can print the JS heap, V8's resident heap pages and what lies outside them
// beside the RSS it reads from /proc, without a metrics listener in the service. It allocates a few objects
// per sample and nothing that stays.
import { appendFileSync } from "node:fs";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";

const file = process.env.MEMORY_PROBE_FILE;
const everyMs = Number(process.env.MEMORY_PROBE_MS ?? 5000);

if (file) {
  setInterval(() => {
    const usage = process.memoryUsage();
    const heap = getHeapStatistics();
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]));
    appendFileSync(
      file,
      `${JSON.stringify({
        atMs: Date.now(),
        pid: process.pid,
        rss: usage.rss,
        heapUsed: usage.heapUsed,
        heapTotal: usage.heapTotal,
        heapPhysical: heap.total_physical_size,
        external: usage.external,
        arrayBuffers: usage.arrayBuffers,
        mallocedMemory: heap.malloced_memory,
        spaces,
      })}\n`,
    );
  }, everyMs).unref();
}
