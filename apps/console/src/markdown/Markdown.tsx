import DOMPurify from "dompurify";
import { Marked } from "marked";
import { memo } from "react";

// Tool and provider descriptions are Markdown (imports convert a description's HTML at import time). They
// are rendered with `marked` and the result sanitised with DOMPurify before it reaches the DOM: no script,
// no style, no event handler, no form; links open outside the console and never carry the referrer.

const marked = new Marked({ gfm: true, breaks: false, async: false });

const ALLOWED_TAGS = [
  "p",
  "br",
  "strong",
  "em",
  "del",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "a",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "hr",
];

const purify = DOMPurify();
purify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** `text` as sanitised HTML (Markdown rendered, then every unsafe tag and attribute removed). */
export const markdownHtml = (text: string): string =>
  purify.sanitize(marked.parse(text) as string, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ["href", "title"],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  });

/** A description shown as sanitised Markdown. */
export const Markdown = memo((props: { readonly text: string; readonly className?: string }) =>
  props.text.trim() === "" ? null : (
    <div
      className={`markdown ${props.className ?? ""}`}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: the HTML is DOMPurify's output (above)
      dangerouslySetInnerHTML={{ __html: markdownHtml(props.text) }}
    />
  ),
);
