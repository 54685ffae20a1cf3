import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

// The image definition (deploy/Containerfile) and the compose file, checked without a container runtime, so
// they hold where podman cannot run; image-run.test.ts builds and runs the image where it can.

const root = join(import.meta.dirname, "..", "..", "..");

type Instruction = { readonly keyword: string; readonly args: string };

/** The instructions of a Containerfile: continuation lines joined, comments dropped. */
const instructions = (text: string): ReadonlyArray<Instruction> =>
  text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
    });

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe("the container image definition", () => {
  it("is multi-stage, runs Node as PID 1 as a non-root user, and checks /readyz", async () => {
    const all = instructions(await readFile(join(root, "deploy", "Containerfile"), "utf8"));
    const stages = all.filter((i) => i.keyword === "FROM");
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const final = all.slice(all.lastIndexOf(stages.at(-1)!));
    const user = final.find((i) => i.keyword === "USER")?.args ?? "";
    expect(user).toMatch(/^[1-9][0-9]*:[1-9][0-9]*$/);
    expect(final.find((i) => i.keyword === "HEALTHCHECK")?.args).toContain("/readyz");
    // Exec form: no shell between the runtime's SIGTERM and Node's handler.
    expect(JSON.parse(final.find((i) => i.keyword === "ENTRYPOINT")!.args)).toEqual(["node"]);
    const cmd = JSON.parse(final.find((i) => i.keyword === "CMD")!.args) as Array<string>;
    expect(await exists(join(root, "apps", "api", cmd[0]!))).toBe(true);
    // The final stage writes nothing outside its volume: no RUN, so a read-only root filesystem suffices.
    expect(final.filter((i) => i.keyword === "RUN")).toEqual([]);
    expect(final.find((i) => i.keyword === "VOLUME")?.args).toContain("/data");
  });

  it("copies only files that exist in the repository", async () => {
    const all = instructions(await readFile(join(root, "deploy", "Containerfile"), "utf8"));
    const sources = all
      .filter((i) => i.keyword === "COPY" && !i.args.includes("--from="))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    const missing: Array<string> = [];
    for (const source of sources) if (!(await exists(join(root, source)))) missing.push(source);
    expect(missing).toEqual([]);
  });
});

describe("the compose file", () => {
  it("starts the service after its migrations, on PostgreSQL and Redis, with documented settings only", async () => {
    const compose = parseYaml(await readFile(join(root, "deploy", "compose.yaml"), "utf8"), { merge: true }) as {
      // biome-ignore lint/suspicious/noExplicitAny: a compose file is free-form YAML
      services: Record<string, any>;
    };
    expect(Object.keys(compose.services).sort()).toEqual(["api", "migrate", "postgres", "redis"]);
    const { api, migrate } = compose.services;
    expect(await exists(join(root, migrate.build.context.replace("..", "."), migrate.build.dockerfile))).toBe(true);
    expect(api.read_only).toBe(true);
    expect(api.depends_on.migrate.condition).toBe("service_completed_successfully");
    expect(api.environment.DATABASE_MIGRATE_ON_START).toBe("false");
    const readme = await readFile(join(root, "README.md"), "utf8");
    const undocumented = Object.keys(api.environment).filter((name) => !readme.includes(`\`${name}\``));
    expect(undocumented).toEqual([]);
  });
});
