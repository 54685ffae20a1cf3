import type { StorageTx } from "@mcpsm/domain/storage";
import type { Tables } from "../table/tables.js";
import type { TxContext } from "./runner.js";

/**
 * The operations of one table (or one concern) of the StorageTx. Built in two steps: from the tables once
 * per storage (the statements are prepared there), then per transaction from its context.
 */
export type Operations<Names extends keyof StorageTx> = (tables: Tables) => (ctx: TxContext) => Pick<StorageTx, Names>;
