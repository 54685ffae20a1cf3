// Types of the parser's output for the metrics tests (the package ships none).
declare module "parse-prometheus-text-format" {
  interface Sample {
    readonly labels?: Readonly<Record<string, string>>;
    readonly value?: string;
    readonly count?: string;
    readonly sum?: string;
    readonly buckets?: Readonly<Record<string, string>>;
  }
  interface Family {
    readonly name: string;
    readonly help: string;
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    readonly metrics: ReadonlyArray<Sample>;
  }
  export default function parsePrometheusTextFormat(text: string): Array<Family>;
}
