import type { StorageTx } from "@mcpsm/domain/storage";
import type { Tables } from "../table/tables.js";
import { promptOperations } from "./prompts.js";
import { providerOperations } from "./providers.js";
import { resourceOperations } from "./resources.js";
import { type Runner, txContext } from "./runner.js";
import { secretOperations } from "./secrets.js";
import { serverTokenOperations } from "./server-tokens.js";
import { serverOperations } from "./servers.js";
import { toolOperations } from "./tools.js";
import { variableOperations } from "./variables.js";

/**
 * Prepares the statements of every operation from the tables (once per storage) and answers the maker of
 * the StorageTx whose operations run them with a runner (once per transaction or read).
 */
export const prepareStorageTx = (tables: Tables): ((runner: Runner) => StorageTx) => {
  const parts = [
    providerOperations(tables),
    toolOperations(tables),
    promptOperations(tables),
    resourceOperations(tables),
    variableOperations(tables),
    serverOperations(tables),
    serverTokenOperations(tables),
    secretOperations(tables),
  ] as const;
  return (runner) => {
    const ctx = txContext(tables, runner);
    const [providers, tools, prompts, resources, variables, servers, serverTokens, secrets] = parts;
    return {
      ...providers(ctx),
      ...tools(ctx),
      ...prompts(ctx),
      ...resources(ctx),
      ...variables(ctx),
      ...servers(ctx),
      ...serverTokens(ctx),
      ...secrets(ctx),
    };
  };
};
