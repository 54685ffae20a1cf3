import { describe, expect, it } from "vitest";
import { acceptedFlags, HEAP_FLAGS, MALLOC_ENV, relaunchFor } from "../src/launcher/memory-settings.js";

const node = "/usr/bin/node";
const plain = { execPath: node, execArgv: [], argv: [node, "/srv/dist/main.js"], env: { HOME: "/root" } };

describe("the launcher's V8 flags", () => {
  it("keeps every flag the running Node accepts", () => {
    expect(acceptedFlags(process.execPath, HEAP_FLAGS, () => expect.fail("no flag is refused"))).toEqual(HEAP_FLAGS);
  });

  it("leaves out a flag this Node refuses (exit 9, bad option), says which, and keeps the others", () => {
    const refused: Array<string> = [];
    const flags = [HEAP_FLAGS[0]!, "--no-such-v8-flag-of-a-future-node"];
    expect(acceptedFlags(process.execPath, flags, (flag) => refused.push(flag))).toEqual([HEAP_FLAGS[0]]);
    expect(refused).toEqual(["--no-such-v8-flag-of-a-future-node"]);
  });

  it("relaunches without a refused flag, still with the allocator settings", () => {
    const relaunch = relaunchFor(plain, (flags) => flags.filter((flag) => flag !== HEAP_FLAGS[1]));
    expect(relaunch?.args).toEqual([node, HEAP_FLAGS[0], "/srv/dist/main.js"]);
    expect(relaunch?.env).toEqual({ HOME: "/root", ...MALLOC_ENV });
  });

  it("probes once when every flag is accepted", () => {
    let probes = 0;
    acceptedFlags(
      node,
      HEAP_FLAGS,
      () => undefined,
      () => {
        probes += 1;
        return true;
      },
    );
    expect(probes).toBe(1);
  });
});
