import { useState } from "react";
import { Button } from "react-aria-components";

/** Copies `text` to the clipboard and says so (politely, for screen readers). */
export const CopyButton = (props: { readonly text: string; readonly label?: string }) => {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <span className="copy">
      <Button
        className="button"
        onPress={() =>
          navigator.clipboard.writeText(props.text).then(
            () => setState("copied"),
            () => setState("failed"),
          )
        }
      >
        {props.label ?? "Copy"}
      </Button>
      <span aria-live="polite" className="muted">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select the text and copy it" : ""}
      </span>
    </span>
  );
};
