// A bar chart drawn as plain SVG: the usage page needs bars over time and nothing a chart library adds is
// worth its weight here (docs/decisions.md, "Usage page"). One <rect> per bucket with a <title> for the
// hover text; the figure's label says what it shows for screen readers.

/** One bar: its bucket's start, its value, and the part of it drawn as a warning (errors). */
export interface Bar {
  readonly at: string;
  readonly value: number;
  readonly part?: number;
}

const WIDTH = 720;
const HEIGHT = 120;
const AXIS = 2;

/** The bucket start as the axis shows it: the date for days, else the date and time. */
const tick = (at: string, daily: boolean) => {
  const d = new Date(at);
  return daily
    ? d.toLocaleDateString()
    : d.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
};

/** Bars of `bars` scaled to the largest; `format` writes a value for the hover text and the scale. */
export const UsageChart = (props: {
  readonly title: string;
  readonly bars: ReadonlyArray<Bar>;
  readonly format: (value: number) => string;
  readonly daily: boolean;
  readonly partLabel?: string;
}) => {
  const { bars, format } = props;
  const max = Math.max(0, ...bars.map((b) => b.value));
  const step = bars.length === 0 ? WIDTH : WIDTH / bars.length;
  const gap = step > 4 ? 1 : 0;
  const y = (value: number) => (max === 0 ? 0 : (value / max) * (HEIGHT - AXIS - 4));
  const total = bars.reduce((sum, b) => sum + b.value, 0);
  const first = bars[0];
  const last = bars.at(-1);
  return (
    <figure className="usage-chart">
      <figcaption>
        {props.title} <span className="muted">(peak {format(max)})</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${props.title}: ${bars.length} buckets, peak ${format(max)}, ${bars.filter((b) => b.value > 0).length} with data`}
        data-total={total}
      >
        <line x1={0} x2={WIDTH} y1={HEIGHT - AXIS} y2={HEIGHT - AXIS} className="axis" />
        {bars.map((b, i) =>
          b.value === 0 ? null : (
            <g key={b.at}>
              <rect
                x={i * step}
                width={Math.max(step - gap, 0.5)}
                y={HEIGHT - AXIS - y(b.value)}
                height={y(b.value)}
                className="bar"
              >
                <title>{`${new Date(b.at).toLocaleString()}: ${format(b.value)}${b.part ? `, ${props.partLabel ?? ""} ${format(b.part)}` : ""}`}</title>
              </rect>
              {b.part !== undefined && b.part > 0 && (
                <rect
                  x={i * step}
                  width={Math.max(step - gap, 0.5)}
                  y={HEIGHT - AXIS - y(b.part)}
                  height={y(b.part)}
                  className="bar part"
                />
              )}
            </g>
          ),
        )}
      </svg>
      {/* The axis labels sit under the drawing: SVG text would stretch with it. */}
      <div className="usage-ticks">
        <span>{first === undefined ? "" : tick(first.at, props.daily)}</span>
        <span>{last === undefined || bars.length < 2 ? "" : tick(last.at, props.daily)}</span>
      </div>
    </figure>
  );
};
