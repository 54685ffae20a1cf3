import { Checkbox, FieldError, Input, Label, TextField } from "react-aria-components";

// A form generated from a tool's input schema (the MCP tools/list inputSchema): objects with declared
// properties become groups of fields (the service's tools take {pathArgs, queryArgs, bodyArgs}), each
// scalar property a field typed by its JSON Schema type; arrays and free-form objects are edited as JSON
// text. Values are kept by dotted path ("pathArgs.petId").

type JsonSchema = {
  readonly type?: string | ReadonlyArray<string>;
  readonly properties?: Record<string, JsonSchema>;
  readonly required?: ReadonlyArray<string>;
  readonly description?: string;
  readonly title?: string;
};

type Values = Readonly<Record<string, string | boolean>>;

const kindOf = (schema: JsonSchema): string =>
  Array.isArray(schema.type)
    ? (schema.type.find((t) => t !== "null") ?? "string")
    : ((schema.type as string | undefined) ?? (schema.properties === undefined ? "string" : "object"));

const isGroup = (schema: JsonSchema) => kindOf(schema) === "object" && schema.properties !== undefined;

/** The value of one scalar field, or an error message. */
const parse = (kind: string, text: string): { value?: unknown; error?: string } => {
  if (kind === "number" || kind === "integer") {
    const n = Number(text);
    return Number.isNaN(n) || (kind === "integer" && !Number.isInteger(n))
      ? { error: `expected ${kind}` }
      : { value: n };
  }
  if (kind === "object" || kind === "array") {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { error: "expected JSON" };
    }
  }
  return { value: text };
};

/** The arguments the form's values stand for (nested as the schema is), and the fields that do not parse. */
export const formArguments = (
  schema: JsonSchema,
  values: Values,
  prefix = "",
): { args: Record<string, unknown>; errors: Record<string, string> } => {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = prefix === "" ? name : `${prefix}.${name}`;
    const required = (schema.required ?? []).includes(name);
    if (isGroup(property)) {
      const inner = formArguments(property, values, path);
      Object.assign(errors, inner.errors);
      if (required || Object.keys(inner.args).length > 0) args[name] = inner.args;
      continue;
    }
    const raw = values[path];
    const kind = kindOf(property);
    if (kind === "boolean") {
      if (raw !== undefined) args[name] = raw === true;
      continue;
    }
    if (raw === undefined || raw === "") {
      if (required) errors[path] = "required";
      continue;
    }
    const parsed = parse(kind, String(raw));
    if (parsed.error !== undefined) errors[path] = parsed.error;
    else args[name] = parsed.value;
  }
  return { args, errors };
};

const Fields = (props: {
  readonly schema: JsonSchema;
  readonly prefix: string;
  readonly values: Values;
  readonly errors: Readonly<Record<string, string>>;
  readonly onChange: (path: string, value: string | boolean) => void;
}) => (
  <>
    {Object.entries(props.schema.properties ?? {}).map(([name, property]) => {
      const path = props.prefix === "" ? name : `${props.prefix}.${name}`;
      const required = (props.schema.required ?? []).includes(name);
      if (isGroup(property))
        return (
          <fieldset key={path} className="picker">
            <legend>{name}</legend>
            <Fields
              schema={property}
              prefix={path}
              values={props.values}
              errors={props.errors}
              onChange={props.onChange}
            />
          </fieldset>
        );
      const kind = kindOf(property);
      if (kind === "boolean")
        return (
          <Checkbox
            key={path}
            className="checkbox"
            isSelected={props.values[path] === true}
            onChange={(v) => props.onChange(path, v)}
          >
            <span className="box" aria-hidden="true" />
            {name}
          </Checkbox>
        );
      return (
        <TextField
          key={path}
          className="field"
          value={String(props.values[path] ?? "")}
          onChange={(v) => props.onChange(path, v)}
          isRequired={required}
          isInvalid={props.errors[path] !== undefined}
          validationBehavior="aria"
        >
          <Label>
            {name}{" "}
            <span className="muted">
              ({kind}
              {required ? ", required" : ""})
            </span>
          </Label>
          <Input inputMode={kind === "number" || kind === "integer" ? "decimal" : undefined} />
          {property.description !== undefined && <span className="muted">{property.description}</span>}
          <FieldError className="field-error">{props.errors[path]}</FieldError>
        </TextField>
      );
    })}
  </>
);

/** The generated form's fields. */
export const SchemaForm = (props: {
  readonly schema: JsonSchema;
  readonly values: Values;
  readonly errors: Readonly<Record<string, string>>;
  readonly onChange: (path: string, value: string | boolean) => void;
}) =>
  Object.keys(props.schema.properties ?? {}).length === 0 ? (
    <p className="muted">This tool takes no arguments.</p>
  ) : (
    <div className="schema-form">
      <Fields schema={props.schema} prefix="" values={props.values} errors={props.errors} onChange={props.onChange} />
    </div>
  );

export type { JsonSchema };
