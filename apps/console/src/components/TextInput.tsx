import { FieldError, Input, Label, Text, TextArea, TextField } from "react-aria-components";

/** A labelled text field whose error (a problem's `errors` message for its path) is shown under it. */
export const TextInput = (props: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly error?: string | undefined;
  readonly description?: string;
  readonly multiline?: boolean;
  readonly type?: "text" | "url" | "password" | "search";
  readonly isRequired?: boolean;
  readonly name?: string;
  readonly autoFocus?: boolean;
}) => (
  <TextField
    className="field"
    value={props.value}
    onChange={props.onChange}
    isInvalid={props.error !== undefined}
    validationBehavior="aria"
    isRequired={props.isRequired ?? false}
    type={props.type ?? "text"}
    {...(props.name === undefined ? {} : { name: props.name })}
    {...(props.autoFocus === true ? { autoFocus: true } : {})}
  >
    <Label>{props.label}</Label>
    {props.multiline === true ? <TextArea rows={4} /> : <Input />}
    {props.description !== undefined && <Text slot="description">{props.description}</Text>}
    <FieldError className="field-error">{props.error}</FieldError>
  </TextField>
);
