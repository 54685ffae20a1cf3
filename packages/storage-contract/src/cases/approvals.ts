import type { ApprovalRow } from "@mcpsm/domain/storage";
import { describe, expect, it } from "vitest";
import { at, server } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** Calls waiting for approval (docs/api-rules.md §20): compare-and-set on the status, gone with their server. */
export const approvalCases = (h: Harness) =>
  describe("approvals", () => {
    const s1 = server(1);
    const approval = (n: number, override: Partial<ApprovalRow> = {}): ApprovalRow => ({
      id: `approval${String(n).padStart(24, "0")}`,
      tenant: s1.tenant,
      serverId: s1.id,
      toolId: "tool0000001",
      toolName: "deleteThing",
      principal: "server-token:tok",
      argumentsHash: `hash-${n}`,
      argumentsShown: "{}",
      status: "PENDING",
      createdAt: at(n),
      expiresAt: at(n + 600),
      decidedAt: null,
      decidedBy: "",
      ...override,
    });

    it("stores, finds and lists a caller's approvals in creation order; deleting the server deletes them", async () => {
      await h.seed({ servers: [s1] });
      await h.run((tx) => tx.insertApproval(approval(2)));
      await h.run((tx) => tx.insertApproval(approval(1, { principal: "oauth:other" })));
      await h.run((tx) => tx.insertApproval(approval(3)));
      expect(await h.read((tx) => tx.findApproval(approval(2).id))).toEqual(approval(2));
      const mine = await h.read((tx) => tx.listCallApprovals(s1.id, "server-token:tok", "tool0000001"));
      expect(mine.map((r) => r.id)).toEqual([approval(2).id, approval(3).id]);
      expect((await h.read((tx) => tx.listApprovals(s1.tenant, "PENDING", at(602)))).map((r) => r.id)).toEqual([
        approval(3).id,
      ]);
      await h.run((tx) => tx.deleteServer(s1.id));
      expect(await h.read((tx) => tx.findApproval(approval(2).id))).toBeUndefined();
    });

    it("an update applies only from the expected status, once", async () => {
      await h.seed({ servers: [s1] });
      await h.run((tx) => tx.insertApproval(approval(1)));
      const approved = { ...approval(1), status: "APPROVED" as const, decidedAt: at(5), decidedBy: "alice" };
      expect(await h.run((tx) => tx.updateApproval(approved, "PENDING"))).toBe(true);
      expect(await h.run((tx) => tx.updateApproval({ ...approval(1), status: "DENIED" }, "PENDING"))).toBe(false);
      expect(await h.read((tx) => tx.findApproval(approved.id))).toEqual(approved);
      expect(await h.run((tx) => tx.updateApproval({ ...approved, status: "USED" }, "APPROVED"))).toBe(true);
      expect(await h.run((tx) => tx.updateApproval({ ...approved, status: "USED" }, "APPROVED"))).toBe(false);
    });

    it("deletes expired approvals in batches and answers their statuses", async () => {
      await h.seed({ servers: [s1] });
      await h.run((tx) => tx.insertApproval(approval(1)));
      await h.run((tx) => tx.insertApproval(approval(2, { status: "APPROVED", expiresAt: at(602) })));
      await h.run((tx) => tx.insertApproval(approval(3, { expiresAt: at(900) })));
      expect(await h.read((tx) => tx.hasExpiredApprovals(at(600)))).toBe(false);
      expect(await h.run((tx) => tx.deleteExpiredApprovals(at(600), 10))).toEqual([]);
      expect(await h.read((tx) => tx.hasExpiredApprovals(at(601)))).toBe(true);
      expect(await h.run((tx) => tx.deleteExpiredApprovals(at(602), 1))).toEqual(["PENDING"]);
      expect(await h.read((tx) => tx.hasExpiredApprovals(at(602)))).toBe(true);
      expect(await h.run((tx) => tx.deleteExpiredApprovals(at(602), 10))).toEqual(["APPROVED"]);
      expect(await h.read((tx) => tx.hasExpiredApprovals(at(602)))).toBe(false);
      expect(await h.read((tx) => tx.hasExpiredApprovals(at(900)))).toBe(true);
      expect(await h.read((tx) => tx.findApproval(approval(3).id))).toEqual(approval(3, { expiresAt: at(900) }));
    });

    it("refuses an approval of a server that does not exist", async () => {
      await expect(h.run((tx) => tx.insertApproval(approval(1)))).rejects.toThrow();
    });
  });
