import type { Operations } from "./operations.js";
import { childOperations, childStatements } from "./provider-children.js";

export const resourceOperations: Operations<
  "insertResource" | "updateResource" | "deleteResource" | "findResource" | "listResources"
> = (tables) => {
  const statements = childStatements(tables.resources, "r0");
  return (ctx) => {
    const resources = childOperations(ctx, "resource", statements);
    return {
      insertResource: resources.insert,
      updateResource: resources.update,
      deleteResource: resources.delete,
      findResource: resources.find,
      listResources: resources.list,
    };
  };
};
