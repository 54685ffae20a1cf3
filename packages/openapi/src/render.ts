import { type DocumentOptions, openApiDocument } from "./document.js";

/** The document as the committed file holds it: two-space JSON and a final newline. */
export const renderDocument = (options: DocumentOptions = {}): string =>
  `${JSON.stringify(openApiDocument(options), null, 2)}\n`;
