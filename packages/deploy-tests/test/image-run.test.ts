import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPodman, localBase, type Podman, pnpmCaches, repositoryRoot, turboCache } from "./support/podman.js";

// The real image: deploy/Containerfile built on the local base (deploy/local-base/make-base.sh, no registry)
// and run the way the Containerfile's header says: read-only root, a tmpfs /tmp, the embedded default store.
// Where podman cannot start a container, one line says so and the definition tests still check the file;
// .ci/run sets MCPSM_REQUIRE_CONTAINERS=1 after installing podman, so there a runtime that fails is a failure.

const image = "localhost/mcpsm:deploy-test";
const name = `mcpsm-deploy-test-${process.pid}`;
const required = process.env.MCPSM_REQUIRE_CONTAINERS === "1";

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Resolves when the container's log has the service's "listening" line; rejects if the log ends first. */
const listening = (podman: Podman) =>
  new Promise<void>((resolve, reject) => {
    const logs = spawn("podman", ["logs", "--follow", name], { env: podman.env, stdio: ["ignore", "pipe", "pipe"] });
    let seen = "";
    createInterface({ input: logs.stdout }).on("line", (line) => {
      seen += `${line}\n`;
      if (line.includes('"msg":"listening"')) {
        logs.kill();
        resolve();
      }
    });
    logs.once("exit", () => reject(new Error(`container log ended before "listening":\n${seen}`)));
  });

describe("the container image, built and run", () => {
  let podman: Podman | undefined;
  let unavailable = "";

  beforeAll(async () => {
    const found = await findPodman();
    if (typeof found === "string") {
      unavailable = found;
      return;
    }
    try {
      const base = await localBase(found);
      await found.run([...found.runtimeFlags, "run", "--rm", base, "node", "-e", "0"], 60_000);
      const started = Date.now();
      // --format docker: OCI images drop HEALTHCHECK. --network host: the build stage's pnpm reaches the registry.
      await found.run(
        [
          "build",
          ...found.runtimeFlags,
          "--format",
          "docker",
          "--network",
          "host",
          "--build-arg",
          `NODE_IMAGE=${base}`,
          "--build-arg",
          "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt",
          ...(await pnpmCaches()),
          ...(await turboCache()),
          "-f",
          join(repositoryRoot, "deploy", "Containerfile"),
          "-t",
          image,
          repositoryRoot,
        ],
        1_500_000,
      );
      process.stdout.write(`container image: built in ${Math.round((Date.now() - started) / 1000)} s\n`);
      podman = found;
    } catch (error) {
      unavailable = `podman cannot build or start a container here: ${String(error).split("\n")[0]}`;
    }
  }, 1_800_000);

  afterAll(async () => {
    await podman?.run(["rm", "--force", "--volumes", "--ignore", name]).catch(() => undefined);
  }, 60_000);

  it("runs read-only as user 10001, answers /readyz, passes its HEALTHCHECK and exits 0 on SIGTERM", async () => {
    if (podman === undefined) {
      process.stdout.write(`container image: not built or run (${unavailable}); its definition is checked\n`);
      expect(required, `MCPSM_REQUIRE_CONTAINERS=1 but ${unavailable}`).toBe(false);
      return;
    }
    const port = String(await freePort());
    await podman.run([
      ...podman.runtimeFlags,
      "run",
      "--detach",
      "--name",
      name,
      "--read-only",
      "--tmpfs",
      "/tmp",
      // Host network on a port of our own: no bridge (iptables) needed in the sandbox.
      "--network",
      "host",
      // The HEALTHCHECK's timer needs systemd; the test runs the check itself.
      "--health-interval",
      "disable",
      "--env",
      "HOST=127.0.0.1",
      "--env",
      `PORT=${port}`,
      "--env",
      "METRICS_PORT=0",
      image,
    ]);
    // `logs --follow` starts at the log's beginning: no line is missed by starting it after the container.
    await listening(podman);

    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    // The image's own HEALTHCHECK command (exit 0 = healthy).
    await podman.run(["healthcheck", "run", name]);
    expect(await podman.run(["exec", name, "node", "-e", "process.stdout.write(String(process.getuid()))"])).toBe(
      "10001",
    );
    const write = "try{require('fs').writeFileSync('/app/x','')}catch(e){process.stdout.write(e.code)}";
    expect(await podman.run(["exec", name, "node", "-e", write])).toBe("EROFS");

    // STOPSIGNAL, then the grace period: exit 0 means Node closed itself (a SIGKILL after the grace gives 137).
    const grace = 20;
    await podman.run(["stop", "--time", String(grace), name], (grace + 10) * 1000);
    expect(await podman.run(["inspect", "--format", "{{.State.ExitCode}} {{.Config.User}}", name])).toBe(
      "0 10001:10001",
    );
    const containerfile = await readFile(join(repositoryRoot, "deploy", "Containerfile"), "utf8");
    expect(containerfile).toMatch(/^STOPSIGNAL SIGTERM$/m);
  }, 300_000);
});
