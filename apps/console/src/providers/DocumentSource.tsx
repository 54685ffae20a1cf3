import { FileTrigger, Button, Label, TextArea, TextField, FieldError } from "react-aria-components";

import { TextInput } from "../components/TextInput.js";

// Where an OpenAPI description comes from: pasted text, a local file (read in the browser), or a URL that
// the service fetches (`import.url`): the page's CSP (connect-src 'self') keeps the browser from fetching
// another origin, by design. Text and URL exclude each other: filling one empties the other.

export const DocumentSource = (props: {
  readonly value: string;
  readonly onChange: (text: string) => void;
  readonly error?: string | undefined;
  readonly url: string;
  readonly onUrlChange: (url: string) => void;
  readonly urlError?: string | undefined;
}) => (
  <div className="document-source">
    <TextField
      className="field"
      value={props.value}
      onChange={(text) => {
        props.onUrlChange("");
        props.onChange(text);
      }}
      isInvalid={props.error !== undefined}
      validationBehavior="aria"
    >
      <Label>OpenAPI description (JSON or YAML)</Label>
      <TextArea rows={10} className="mono" spellCheck={false} />
      <FieldError className="field-error">{props.error}</FieldError>
    </TextField>
    <FileTrigger
      acceptedFileTypes={[".json", ".yaml", ".yml", "application/json", "application/yaml", "text/yaml"]}
      onSelect={(files) => {
        const file = files?.[0];
        if (file !== undefined)
          void file.text().then((text) => {
            props.onUrlChange("");
            props.onChange(text);
          });
      }}
    >
      <Button className="button">Choose a file…</Button>
    </FileTrigger>
    <TextInput
      label="…or its URL (fetched by the service)"
      type="url"
      value={props.url}
      onChange={(url) => {
        props.onChange("");
        props.onUrlChange(url);
      }}
      error={props.urlError}
    />
  </div>
);
