import type { components } from "@mcpsm/client";
import { count, percent } from "./usage-format.js";

type ToolUsage = components["schemas"]["ToolUsage"];

/** What shaping saved on a tool's answers, or nothing when it saved nothing. */
const saving = (t: ToolUsage) =>
  t.averageTokensBefore > 0 && t.averageTokensAfter < t.averageTokensBefore
    ? percent(1 - t.averageTokensAfter / t.averageTokensBefore)
    : "";

/**
 * A server's tools by calls, with the average size of their answers before response shaping and as the
 * model received them (docs/api-rules.md §24): where a filter or a token limit is worth its place.
 */
export const ToolUsageTable = (props: { readonly tools: ReadonlyArray<ToolUsage> }) => (
  <table className="table usage-table" data-testid="usage-tools">
    <caption>Per tool, over the whole hours of the window</caption>
    <thead>
      <tr>
        <th scope="col">Tool</th>
        <th scope="col">Calls</th>
        <th scope="col">Error rate</th>
        <th scope="col">Average result tokens</th>
        <th scope="col">Received after shaping</th>
        <th scope="col">Saved</th>
      </tr>
    </thead>
    <tbody>
      {props.tools.map((t) => (
        <tr key={t.tool}>
          <td>
            <code>{t.tool}</code>
          </td>
          <td data-label="Calls">{count(t.calls)}</td>
          <td data-label="Error rate">{percent(t.errorRate)}</td>
          <td data-label="Average result tokens">{count(t.averageTokensBefore)}</td>
          <td data-label="Received after shaping">{count(t.averageTokensAfter)}</td>
          <td data-label="Saved">{saving(t)}</td>
        </tr>
      ))}
    </tbody>
  </table>
);
