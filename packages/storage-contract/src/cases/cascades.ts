import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { prompt, provider, resource, server, serverToken, tokenHash, tool } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** Deletes that take the records owned by the deleted one with them. */
export const cascadeCases = (h: Harness) =>
  describe("cascades", () => {
    it("deleting a provider deletes its tools, prompts and resources, and nothing of other providers", async () => {
      const p1 = provider(1);
      const p2 = provider(2);
      await h.seed({
        providers: [p1, p2],
        tools: [tool(1, p1.id), tool(2, p1.id), tool(3, p2.id)],
        prompts: [prompt(1, p1.id), prompt(2, p2.id)],
        resources: [resource(1, p1.id), resource(2, p2.id)],
      });
      await h.run((tx) => tx.deleteProvider(p1.id));
      const gone = await h.run((tx) =>
        Effect.all([
          tx.findProvider(p1.id),
          tx.findTool(tool(1, p1.id).id),
          tx.findTool(tool(2, p1.id).id),
          tx.findPrompt(prompt(1, p1.id).id),
          tx.findResource(resource(1, p1.id).id),
        ]),
      );
      expect(gone).toEqual(Array(5).fill(undefined));
      expect(
        await h.run((tx) => Effect.all([tx.listTools(p1.id), tx.listPrompts(p1.id), tx.listResources(p1.id)])),
      ).toEqual([[], [], []]);
      expect(
        await h.run((tx) => Effect.all([tx.listTools(p2.id), tx.listPrompts(p2.id), tx.listResources(p2.id)])),
      ).toEqual([[tool(3, p2.id)], [prompt(2, p2.id)], [resource(2, p2.id)]]);
    });

    it("deleting a server deletes its tokens and its links, and nothing of other servers", async () => {
      const p1 = provider(1);
      const t1 = tool(1, p1.id);
      const s1 = server(1, { providers: [{ providerId: p1.id, toolIds: [t1.id] }] });
      const s2 = server(2);
      await h.seed({
        providers: [p1],
        tools: [t1],
        servers: [s1, s2],
        serverTokens: [serverToken(1, s1.id), serverToken(2, s1.id), serverToken(3, s2.id)],
      });
      await h.run((tx) => tx.deleteServer(s1.id));
      const tokens = await h.run((tx) =>
        Effect.all([
          tx.findServerToken(serverToken(1, s1.id).id),
          tx.findServerTokenByHash(tokenHash(2)),
          tx.listServerTokens(s1.id),
          tx.countServerTokens(s1.id),
        ]),
      );
      expect(tokens).toEqual([undefined, undefined, [], 0]);
      expect(await h.run((tx) => tx.listServerTokens(s2.id))).toEqual([serverToken(3, s2.id)]);
      expect(await h.run((tx) => tx.serversReferencing({ kind: "tool", id: t1.id }))).toEqual([]);
      // With the links gone, nothing holds the provider any more.
      await h.run((tx) => tx.deleteProvider(p1.id));
      expect(await h.run((tx) => tx.findServer(s2.id))).toEqual(s2);
    });
  });
