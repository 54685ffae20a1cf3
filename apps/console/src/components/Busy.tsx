import { ProgressBar } from "react-aria-components";

/** An indeterminate progress bar for a running operation (imports, re-syncs, tool calls). */
export const Busy = (props: { readonly label: string }) => (
  <ProgressBar className="busy" isIndeterminate aria-label={props.label}>
    <span className="busy-label">{props.label}…</span>
    <div className="busy-track">
      <div className="busy-fill" />
    </div>
  </ProgressBar>
);
