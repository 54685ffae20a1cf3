import { execFile } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

// Podman as this project's sandbox (and CI, on the same kind of machine) lets it run: runc, because crun
// refuses cgroups in hybrid mode; no default ulimits, because setting them needs CAP_SYS_RESOURCE, which the
// sandbox lacks (docs/deployment.md, "Building without a registry"). Elsewhere these settings are harmless.

const exec = promisify(execFile);
const root = join(import.meta.dirname, "..", "..", "..", "..");

export type Podman = {
  /** Runs `podman args…` and returns its standard output, trimmed. */
  readonly run: (args: ReadonlyArray<string>, timeoutMs?: number) => Promise<string>;
  /** The global flags every `podman run` of the tests adds (the runtime). */
  readonly runtimeFlags: ReadonlyArray<string>;
  readonly env: NodeJS.ProcessEnv;
};

const has = (command: string) =>
  exec("sh", ["-c", `command -v ${command}`]).then(
    () => true,
    () => false,
  );

/** A podman that can start a container, or the one-line reason there is none. */
export const findPodman = async (): Promise<Podman | string> => {
  if (!(await has("podman"))) return "podman is not installed (scripts/ensure-podman.sh installs it)";
  const dir = await mkdtemp(join(tmpdir(), "mcpsm-podman-"));
  const conf = join(dir, "containers.conf");
  await writeFile(conf, "[containers]\ndefault_ulimits = []\n");
  const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? conf };
  const runtimeFlags = (await has("runc")) ? ["--runtime", "runc"] : [];
  const run = async (args: ReadonlyArray<string>, timeoutMs = 120_000) =>
    (await exec("podman", [...args], { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
  return { run, runtimeFlags, env };
};

/** Makes (or reuses) the local base of deploy/local-base/make-base.sh; returns its image reference. */
export const localBase = async (podman: Podman): Promise<string> => {
  const { stdout } = await exec("bash", [join(root, "deploy", "local-base", "make-base.sh")], {
    env: podman.env,
    timeout: 300_000,
  });
  return stdout.trim();
};

/** The repository's turbo cache, mounted as the build stage's: the host's `turbo run build` (which precedes the
 * tests) made the same task hashes, so the build stage restores its packages instead of compiling them. */
export const turboCache = async (): Promise<ReadonlyArray<string>> => {
  // Turbo keeps it beside the main checkout's .git (shared by git worktrees), else in the repository's root.
  const common = await exec("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: root }).then(
    ({ stdout }) => dirname(stdout.trim()),
    () => root,
  );
  const dir = join(common, ".turbo", "cache");
  await mkdir(dir, { recursive: true });
  return ["--volume", `${dir}:/turbo-cache`, "--build-arg", "TURBO_CACHE_DIR=/turbo-cache"];
};

/** pnpm's store and metadata cache on this machine, mounted where the build stage's pnpm (root) looks for them. */
export const pnpmCaches = async (): Promise<ReadonlyArray<string>> => {
  const store = (await exec("pnpm", ["store", "path"], { cwd: root })).stdout.trim();
  const configured = (await exec("pnpm", ["config", "get", "cache-dir"], { cwd: root })).stdout.trim();
  const cache = configured.startsWith("/")
    ? configured
    : join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pnpm");
  const storeDir = store.replace(/\/v\d+$/, "");
  for (const dir of [storeDir, cache]) await mkdir(dir, { recursive: true });
  // `store path` names the versioned folder (…/store/v10); pnpm's store-dir is the folder above it.
  return [
    ["--volume", `${storeDir}:/root/.local/share/pnpm/store`],
    ["--volume", `${cache}:/root/.cache/pnpm`],
  ].flat();
};

export const repositoryRoot = root;
