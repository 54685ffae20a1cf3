// An upstream REST API for bench/hot-paths.mjs with ANSWER_BYTES: like ../shared/perf/servers/upstream.mjs
// (node:http on 127.0.0.1, GET /__count reads the call counter) but every GET is answered with one JSON list
// of customer-like records of about BYTES bytes (the records of bench/response-shaping.mjs; the word
// "widget" in it is what the bench's check looks for).
//   node sized-upstream.mjs PORT BYTES
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? 18203);
const bytes = Number(process.argv[3] ?? 10240);
const record = (i) => ({
  id: `cus_${i.toString(36)}`,
  object: "customer",
  email: `user${i}@example.com`,
  name: `Customer ${i}`,
  created: 1700000000 + i,
  livemode: false,
  metadata: { plan: "pro", seats: i % 17 },
  address: { city: "Berlin", country: "DE", line1: `${i} Main Street`, postal_code: "10115" },
});
const data = [];
while (JSON.stringify(data).length < bytes) data.push(record(data.length));
const payload = Buffer.from(JSON.stringify({ object: "list", kind: "widget", data, has_more: true }));
let count = 0;

const server = createServer((req, res) => {
  if (req.url === "/__count") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ count }));
    return;
  }
  count++;
  res.writeHead(200, { "Content-Type": "application/json", "Content-Length": payload.length });
  res.end(payload);
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
