import type { Operations } from "./operations.js";
import { childOperations, childStatements } from "./provider-children.js";

export const promptOperations: Operations<
  "insertPrompt" | "updatePrompt" | "deletePrompt" | "findPrompt" | "listPrompts"
> = (tables) => {
  const statements = childStatements(tables.prompts, "q");
  return (ctx) => {
    const prompts = childOperations(ctx, "prompt", statements);
    return {
      insertPrompt: prompts.insert,
      updatePrompt: prompts.update,
      deletePrompt: prompts.delete,
      findPrompt: prompts.find,
      listPrompts: prompts.list,
    };
  };
};
