import type { FieldProblem } from "../errors/domain-errors.js";
import type { ProviderRow, ToolRow } from "../storage/rows.js";

// docs/api-rules.md §13: a provider with oauth2Config gets its upstream credential from OAuth alone, so no
// tool of it may set `Authorization` itself (one source of credentials, refused on write).

/** The problems of tools that set `Authorization` while their provider has oauth2Config; none otherwise. */
export const oauth2HeaderProblems = (
  oauth2Config: ProviderRow["oauth2Config"],
  tools: ReadonlyArray<Pick<ToolRow, "name" | "headers">>,
  path: string,
): ReadonlyArray<FieldProblem> =>
  oauth2Config === null
    ? []
    : tools
        .filter((tool) => tool.headers.some((header) => header.key.toLowerCase() === "authorization"))
        .map((tool) => ({
          path,
          message: `tool '${tool.name}' sets the Authorization header, but its provider has oauth2Config, which supplies it (one source of credentials)`,
        }));
