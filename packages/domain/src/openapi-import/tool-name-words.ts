// Word lists of the tool-naming scheme (docs/decisions.md, "Tool names from operations").

/**
 * Standard abbreviations a long word may take in a tool name, and only these: each is how developers commonly
 * write the word (in code, APIs and docs), so a person and a model read it back without guessing.
 */
export const TOOL_NAME_ABBREVIATIONS: Readonly<Record<string, string>> = {
  account: "acct",
  accounts: "accts",
  address: "addr",
  addresses: "addrs",
  administrator: "admin",
  administrators: "admins",
  application: "app",
  applications: "apps",
  argument: "arg",
  arguments: "args",
  attribute: "attr",
  attributes: "attrs",
  authentication: "auth",
  authorization: "authz",
  authorizations: "authz",
  certificate: "cert",
  certificates: "certs",
  configuration: "config",
  configurations: "configs",
  connection: "conn",
  connections: "conns",
  credential: "cred",
  credentials: "creds",
  database: "db",
  databases: "dbs",
  definition: "def",
  definitions: "defs",
  description: "desc",
  destination: "dest",
  development: "dev",
  directory: "dir",
  directories: "dirs",
  document: "doc",
  documents: "docs",
  environment: "env",
  environments: "envs",
  execution: "exec",
  executions: "execs",
  expression: "expr",
  extension: "ext",
  extensions: "exts",
  identifier: "id",
  identifiers: "ids",
  information: "info",
  maximum: "max",
  message: "msg",
  messages: "msgs",
  minimum: "min",
  notification: "notif",
  notifications: "notifs",
  number: "num",
  organization: "org",
  organizations: "orgs",
  package: "pkg",
  packages: "pkgs",
  parameter: "param",
  parameters: "params",
  permission: "perm",
  permissions: "perms",
  preference: "pref",
  preferences: "prefs",
  previous: "prev",
  production: "prod",
  properties: "props",
  property: "prop",
  reference: "ref",
  references: "refs",
  repositories: "repos",
  repository: "repo",
  request: "req",
  requests: "reqs",
  response: "resp",
  responses: "resps",
  schedule: "sched",
  schedules: "scheds",
  sequence: "seq",
  service: "svc",
  services: "svcs",
  source: "src",
  sources: "srcs",
  specification: "spec",
  specifications: "specs",
  statistics: "stats",
  synchronization: "sync",
  synchronize: "sync",
  temporary: "temp",
  template: "tmpl",
  templates: "tmpls",
  transaction: "txn",
  transactions: "txns",
  variable: "var",
  variables: "vars",
  version: "ver",
  versions: "vers",
};

/** Words an operation name commonly starts with (or, as in `compute.instances.list`, ends with). */
export const VERBS = new Set(
  (
    "get list create update delete put post patch remove add set search find describe fetch retrieve replace " +
    "upload download check start stop cancel send run execute enable disable read write query validate test " +
    "register deregister unregister import export move copy attach detach associate disassociate tag untag reset " +
    "restore approve reject accept revoke grant lock unlock close open count batch modify purge publish subscribe " +
    "unsubscribe verify confirm generate invoke apply merge sync refresh resume pause suspend archive unarchive " +
    "rename clone trigger assign unassign install uninstall login logout head options insert upsert mark report " +
    "transfer submit request rotate renew resend reorder sort watch unwatch follow unfollow star unstar block " +
    "unblock invite redeem capture refund void authorize reverse preview render convert estimate calculate"
  ).split(" "),
);

/** Words a name can do without before any other. */
export const STOP_WORDS = new Set(["a", "an", "the", "for", "of", "by", "to", "in", "on", "with", "and", "from", "at", "all"]);
