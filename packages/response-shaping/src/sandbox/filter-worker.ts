/**
 * The sandbox thread: runs one filter at a time for the pool in `filter-sandbox.ts`. Self-contained (it
 * imports npm packages only, so Node can run this file as TypeScript too) and written in erasable syntax.
 *
 * Bounds inside the thread: the JavaScript heap by the pool's `resourceLimits`; jq's WebAssembly memory
 * by refusing growth past `JQ_MEMORY_CAP_BYTES` (jq then fails with "out of memory", never the process);
 * output by `maxOutputChars`. Time is bounded from outside: the pool terminates the thread at its deadline.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { parentPort } from "node:worker_threads";
import { search } from "@jmespath-community/jmespath";
import { type Jq, loadJq } from "jq-wasm";

/** jq's linear memory may grow to this and no further. */
export const JQ_MEMORY_CAP_BYTES = 256 * 1024 * 1024;

export type SandboxRequest =
  | { readonly id: number; readonly kind: "check"; readonly language: "jq"; readonly expression: string }
  | {
      readonly id: number;
      readonly kind: "apply";
      readonly language: "jq" | "jmespath";
      readonly expression: string;
      readonly text: string;
      readonly maxOutputChars: number;
    };

/** The first message of a thread: jq is loaded (or could not be). */
/** `cpuMs`: the thread's CPU time when it sent the message (where a run's budget starts counting). */
export type SandboxReady = { readonly ready: boolean; readonly message?: string; readonly cpuMs?: number };

export type SandboxReply = (
  | { readonly id: number; readonly ok: true; readonly text: string }
  | { readonly id: number; readonly ok: false; readonly over: boolean; readonly message: string }
) & { readonly cpuMs?: number };

/** This thread's CPU time so far, in ms. */
const threadCpuMs = () => {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** A request without its id, as the pool takes it. */
export type SandboxJob = SandboxRequest extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never;

type ResizeHeap = (requested: number) => boolean;

/** The few WebAssembly declarations used here (the project's `lib` has no DOM types). */
type ModuleImports = Record<string, unknown>;
type Imports = Record<string, ModuleImports>;
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: Imports): Promise<object>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Wraps Emscripten's heap-growth import so that jq's memory stops at the cap. */
const capMemory = (imports: Imports): Imports => {
  let found = false;
  const capped: Imports = {};
  for (const [moduleName, entries] of Object.entries(imports)) {
    const copy: ModuleImports = { ...entries };
    for (const [name, value] of Object.entries(entries)) {
      if (typeof value === "function" && String(value).includes("getHeapMax")) {
        const grow = value as ResizeHeap;
        copy[name] = (requested: number) => (requested >>> 0 > JQ_MEMORY_CAP_BYTES ? false : grow(requested));
        found = true;
      }
    }
    capped[moduleName] = copy;
  }
  if (!found) throw new Error("jq-wasm: the heap-growth import was not found; its memory could not be capped");
  return capped;
};

/** jq's WebAssembly module, compiled from the package's `jq.wasm`. */
export const compileJqModule = async (): Promise<object> =>
  wasm.compile(await readFile(createRequire(import.meta.url).resolve("jq-wasm/jq.wasm")));

let jqLoading: Promise<Jq> | undefined;
/** jq, instantiated from `given` (the module the pool compiled once for all its threads) or compiled here. */
const jq = (given?: object): Promise<Jq> => {
  jqLoading ??= (async () => {
    const module = given ?? (await compileJqModule());
    type Hook = NonNullable<Parameters<typeof loadJq>[0]>["instantiateWasm"];
    type HookArgs = Parameters<NonNullable<Hook>>;
    return loadJq({
      instantiateWasm: (imports: HookArgs[0], onSuccess: HookArgs[1]) => {
        wasm.instantiate(module, capMemory(imports as unknown as Imports)).then(
          (instance) => onSuccess(instance as Parameters<HookArgs[1]>[0], module as Parameters<HookArgs[1]>[1]),
          () => undefined,
        );
      },
    });
  })();
  return jqLoading;
};

/** jq's answer: nothing is `null`, one output is itself, several are an array of them. */
const jqOutputs = (stdout: string): string => {
  const lines = stdout.split("\n").filter((line) => line !== "");
  if (lines.length === 0) return "null";
  if (lines.length === 1) return lines[0] as string;
  return `[${lines.join(",")}]`;
};

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const run = async (request: SandboxRequest): Promise<SandboxReply> => {
  const { id } = request;
  if (request.kind === "check") {
    const engine = await jq();
    // `limit(0; f)` compiles f and runs none of it.
    const result = engine.raw(null, `limit(0; ${request.expression}\n)`, ["-c"]);
    return result.exitCode === 0
      ? { id, ok: true, text: "" }
      : { id, ok: false, over: false, message: result.stderr.trim() || `jq exited with ${result.exitCode}` };
  }
  let text: string;
  if (request.language === "jq") {
    const result = (await jq()).raw(request.text, request.expression, ["-c"]);
    if (result.exitCode !== 0) {
      const message = result.stderr.trim() || `jq exited with ${result.exitCode}`;
      return { id, ok: false, over: /out of memory/i.test(message), message };
    }
    if (result.stdout.length > request.maxOutputChars)
      return {
        id,
        ok: false,
        over: true,
        message: `the filter's output is larger than its budget of ${request.maxOutputChars} characters`,
      };
    text = jqOutputs(result.stdout);
  } else {
    const value = search(JSON.parse(request.text), request.expression);
    text = JSON.stringify(value ?? null);
  }
  if (text.length > request.maxOutputChars)
    return {
      id,
      ok: false,
      over: true,
      message: `the filter's output is larger than its budget of ${request.maxOutputChars} characters`,
    };
  return { id, ok: true, text };
};

/** The pool's first message: jq's compiled module (or none). */
export type SandboxStart = { readonly jqModule: object | undefined };

parentPort?.on("message", (request: SandboxRequest | SandboxStart) => {
  if ("jqModule" in request) {
    // Load jq and run it once before the first run, so that no run's deadline pays for loading it or for
    // its first, unoptimised pass (tens of milliseconds on a busy machine).
    jq(request.jqModule).then(
      (engine) => {
        engine.raw('{"a":[{"b":1}]}', ".a | map({b}) | length", ["-c"]);
        engine.raw("[1]", ". + 1", ["-c"]);
        parentPort?.postMessage({ ready: true, cpuMs: threadCpuMs() } satisfies SandboxReady);
      },
      (error: unknown) => parentPort?.postMessage({ ready: false, message: messageOf(error) } satisfies SandboxReady),
    );
    return;
  }
  run(request).then(
    (reply) => parentPort?.postMessage({ ...reply, cpuMs: threadCpuMs() } satisfies SandboxReply),
    (error: unknown) =>
      parentPort?.postMessage({
        id: request.id,
        ok: false,
        over: error instanceof RangeError || /out of memory|memory access|^Aborted/i.test(messageOf(error)),
        message: messageOf(error),
        cpuMs: threadCpuMs(),
      } satisfies SandboxReply),
  );
});
