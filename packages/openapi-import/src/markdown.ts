import { NodeHtmlMarkdown } from "node-html-markdown";

// Descriptions reach tools and providers as plain Markdown (docs/api-rules.md §15a): CommonMark may hold
// HTML, and some descriptions are mostly HTML (Stripe's `<p>`, `<a href>`, `<code>`). Text with HTML tags is
// converted with node-html-markdown (no DOM, no browser); text without is kept exactly as written.

const converter = new NodeHtmlMarkdown({ keepDataImages: false, useLinkReferenceDefinitions: false });

/** A tag the converter knows (block, inline or line break), not `a < b` or `<T>` in prose. */
const HTML_TAG =
  /<\/?(?:p|a|br|code|pre|em|strong|b|i|u|ul|ol|li|div|span|h[1-6]|table|thead|tbody|tr|td|th|blockquote|hr|img|dl|dt|dd|sup|sub|small|details|summary)\b[^<>]*>/i;

/** `text` as Markdown: HTML converted, anything else unchanged. */
export const asMarkdown = (text: string): string => (HTML_TAG.test(text) ? converter.translate(text).trim() : text);
