// The soak the RSS goal of issue 15 describes: a mix of requests at 80% of its measured peak for N minutes,
// the service's RSS per minute and its growth between the first and the last minute.
//
// 1. warm-up: the mix closed-loop at `connections` for `warmupS` seconds (discarded);
// 2. peak: the mix closed-loop at `connections` for `peakS` seconds: its 2xx per second;
// 3. soak: autocannon's `overallRate` at `share` × peak over the same connections for `minutes` minutes
//    (autocannon spreads the rate over the connections, each sending its per-second share as soon as it can
//    and then waiting for the next second). RSS is read from /proc every `sampleMs`; when the service runs
//    with bench/lib/memory-probe.mjs, its JS heap, V8's resident heap pages and external memory too.
// autocannon comes from the shared harness's install (PERF_DIR/node_modules), as its servers do.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const MiB = 1024 * 1024;
const mib = (bytes) => bytes / MiB;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (from, to) => ((to - from) / from) * 100;

/** The probe's last line written by `pid`, or undefined (no probe, nothing written yet). */
const lastProbe = (file, pid) => {
  try {
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const last = JSON.parse(lines.at(-1));
    return last.pid === pid ? last : undefined;
  } catch {
    return undefined;
  }
};

const describeProbe = (p) => {
  if (p === undefined) return "";
  const space = (name) => mib(p.spaces[name] ?? 0).toFixed(0);
  return (
    `  heap used ${mib(p.heapUsed).toFixed(0)} of ${mib(p.heapTotal).toFixed(0)}, resident ${mib(p.heapPhysical).toFixed(0)}` +
    ` (old ${space("old_space")}, new ${space("new_space")}, code ${space("code_space")}, large ${space("large_object_space")})` +
    `  external ${mib(p.external).toFixed(1)} (array buffers ${mib(p.arrayBuffers).toFixed(1)})` +
    `  outside V8's heap ${mib(p.rss - p.heapPhysical).toFixed(0)} MiB`
  );
};

/**
 * Runs the soak against `url` with autocannon `requests` (cycled in order on every connection). `pid` is the
 * service's; `probeFile` where its memory probe writes; `cpuSeconds(pid)` its CPU time. Returns the peak, the
 * rate driven, the service's CPU per call, one row per minute and the growth between the first and the last
 * minute (of the mean and of the highest RSS sample).
 */
export const soak = async ({
  perfDir,
  url,
  requests,
  verifyBody,
  connections,
  minutes,
  pid,
  rssMiB,
  cpuSeconds,
  probeFile,
  warmupS = 10,
  peakS = 20,
  share = 0.8,
  fixedRps,
  sampleMs = 5000,
  log = (line) => console.error(line),
}) => {
  const autocannon = createRequire(join(perfDir, "package.json"))("autocannon");
  const run = (opts, onResponse) =>
    new Promise((resolve, reject) => {
      const instance = autocannon({ url, requests, verifyBody, connections, timeout: 30, ...opts }, (error, result) =>
        error ? reject(error) : resolve(result),
      );
      if (onResponse) instance.on("response", onResponse);
    });

  await run({ duration: warmupS });
  const peakRun = await run({ duration: peakS });
  const peakRps = peakRun["2xx"] / peakS;
  // A fixed rate instead (SOAK_RPS) compares variants at the same load on a machine whose peak moves.
  const targetRps = fixedRps ?? Math.max(connections, Math.round(peakRps * share));
  log(
    `soak: peak of the mix ${peakRps.toFixed(0)} req/s (closed loop, c=${connections}, ${peakS} s after a ${warmupS} s warm-up; ` +
      `non-2xx ${peakRun.non2xx}, mismatches ${peakRun.mismatches}; RSS then ${rssMiB(pid).toFixed(0)} MiB); driving ${targetRps} req/s (${((targetRps / peakRps) * 100).toFixed(0)}%) for ${minutes} min`,
  );

  const rows = Array.from({ length: minutes }, () => ({ rss: [], probe: undefined, ok: 0, other: 0 }));
  const started = performance.now();
  const minuteNow = () => Math.min(minutes - 1, Math.floor((performance.now() - started) / 60_000));
  const perMinuteSamples = Math.round(60_000 / sampleMs);
  let samples = 0;
  const report = (m) => {
    const row = rows[m];
    row.rssMeanMiB = mean(row.rss);
    row.rssMaxMiB = Math.max(...row.rss);
    row.rps = row.ok / 60;
    log(
      `soak minute ${String(m + 1).padStart(2)}: ${row.rps.toFixed(0).padStart(5)} req/s (other ${row.other})` +
        `  RSS mean ${row.rssMeanMiB.toFixed(0)} max ${row.rssMaxMiB.toFixed(0)} MiB${describeProbe(row.probe)}`,
    );
  };
  const sample = () => {
    const m = Math.min(minutes - 1, Math.floor(samples / perMinuteSamples));
    samples++;
    rows[m].rss.push(rssMiB(pid));
    rows[m].probe = lastProbe(probeFile, pid) ?? rows[m].probe;
    if (samples % perMinuteSamples === 0) report(m);
  };
  const sampler = setInterval(sample, sampleMs);
  const cpuBefore = cpuSeconds(pid);
  const result = await run({ duration: minutes * 60, overallRate: targetRps }, (_client, status) => {
    const row = rows[minuteNow()];
    if (status >= 200 && status < 300) row.ok++;
    else row.other++;
  });
  const cpuMsPerCall = ((cpuSeconds(pid) - cpuBefore) * 1000) / Math.max(1, result["2xx"]);
  clearInterval(sampler);
  // The sampler's last ticks may fall a few milliseconds after autocannon stopped: take them now.
  while (samples < minutes * perMinuteSamples) sample();

  const first = rows[0];
  const last = rows.at(-1);
  const growthMeanPct = pct(first.rssMeanMiB, last.rssMeanMiB);
  const growthMaxPct = pct(first.rssMaxMiB, last.rssMaxMiB);
  log(
    `soak: ${(result["2xx"] / (minutes * 60)).toFixed(0)} req/s over ${minutes} min (target ${targetRps}; non-2xx ${result.non2xx}, ` +
      `errors ${result.errors}, mismatches ${result.mismatches}); p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ` +
      `service CPU ${cpuMsPerCall.toFixed(3)} ms per call`,
  );
  log(
    `soak: RSS first minute ${first.rssMeanMiB.toFixed(0)} MiB (max ${first.rssMaxMiB.toFixed(0)}), last minute ` +
      `${last.rssMeanMiB.toFixed(0)} MiB (max ${last.rssMaxMiB.toFixed(0)}): ${growthMeanPct.toFixed(1)}% (max ${growthMaxPct.toFixed(1)}%)`,
  );
  return {
    peakRps,
    targetRps,
    achievedRps: result["2xx"] / (minutes * 60),
    cpuMsPerCall,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    minutes: rows.map(({ rss, probe, ...row }) => ({
      ...row,
      ...(probe !== undefined
        ? {
            heapUsedMiB: mib(probe.heapUsed),
            heapPhysicalMiB: mib(probe.heapPhysical),
            externalMiB: mib(probe.external),
            outsideHeapMiB: mib(probe.rss - probe.heapPhysical),
          }
        : {}),
    })),
    growthMeanPct,
    growthMaxPct,
  };
};
