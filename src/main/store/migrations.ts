import type { Database } from 'better-sqlite3'
import { checkpointSchema } from './checkpoint-schema'
import { appendToChain } from './action-call-chain'
import { backfillLedger } from './audit-ledger'

/** One step of the schema; applied once, in a transaction, in version order. */
export type Migration = { version: number; name: string; up: (db: Database) => void }

/**
 * Version 1: the tables SPEC §10 names. Columns are the ones the product already relies on;
 * later versions add what later features need. JSON columns hold validated documents.
 */
const initialSchema = `
create table roles (
  id text primary key,
  name text not null,
  defaults_json text not null default '{}',
  created_at text not null
);
create table agents (
  id text primary key,
  name text not null,
  role_id text references roles(id) on delete set null,
  token_hash text not null,
  enabled integer not null default 1,
  profile_json text not null default '{}',
  created_at text not null,
  updated_at text not null
);
create table sessions (
  id text primary key,
  agent_id text not null references agents(id) on delete cascade,
  transport text not null,
  taint text not null default 'PUBLIC',
  started_at text not null,
  ended_at text
);
create index sessions_agent on sessions(agent_id, started_at);
create table approvals (
  id text primary key,
  agent_id text references agents(id) on delete set null,
  session_id text references sessions(id) on delete set null,
  tool text not null,
  status text not null check (status in ('pending','approved','denied','expired')),
  summary text not null,
  risk_flags_json text not null default '[]',
  request_json text not null,
  decision_json text,
  created_at text not null,
  expires_at text not null,
  decided_at text
);
create index approvals_status on approvals(status, created_at);
create table rules (
  id text primary key,
  scope text not null check (scope in ('session','agent','global')),
  agent_id text references agents(id) on delete cascade,
  session_id text references sessions(id) on delete cascade,
  matcher_json text not null,
  decision text not null check (decision in ('allow','deny')),
  match_count integer not null default 0,
  created_at text not null,
  expires_at text,
  revoked_at text
);
create table action_calls (
  seq integer primary key autoincrement,
  id text not null unique,
  agent_id text references agents(id) on delete set null,
  session_id text references sessions(id) on delete set null,
  tool text not null,
  status text not null,
  provider_id text,
  input_json text not null,
  result_json text,
  started_at text not null,
  finished_at text,
  duration_ms integer,
  prev_hash text,
  hash text
);
create index action_calls_agent on action_calls(agent_id, seq);
create index action_calls_status on action_calls(status);
create table events (
  seq integer primary key autoincrement,
  type text not null,
  payload_json text not null,
  at text not null
);
create index events_type on events(type, seq);
create table handles (
  handle_id text primary key,
  requirement_id text not null,
  kind text not null,
  scope text not null,
  owner_id text,
  resource_key text not null,
  provider_id text not null,
  status text not null,
  ref_count integer not null,
  action_call_id text,
  policy_json text not null default '{}',
  meta_json text not null default '{}',
  created_at text not null,
  updated_at text not null
);
create table skills (
  id text primary key,
  agent_id text not null references agents(id) on delete cascade,
  name text not null,
  revision integer not null,
  state text not null check (state in ('pending_approval','approved','rejected')),
  content_hash text not null,
  manifest_json text not null,
  created_at text not null,
  decided_at text,
  unique (agent_id, name, revision)
);
create table settings (
  key text primary key,
  value_json text not null,
  updated_at text not null
);
`

/**
 * Version 2: the execution history of SPEC §10. `action_calls` is rebuilt without foreign keys
 * (history outlives a removed agent, and `on delete set null` would rewrite chained rows), with one
 * column per recorded fact. Rows copied from version 1 keep their seq; finished ones are chained in
 * seq order, running ones are interrupted at the next start. Sessions gain `last_seen_at` and
 * `end_reason`.
 *
 * How the History view's pages stay fast at a million rows (see action-call-query.ts):
 * - one filter: an index `(column, seq)` per filter reads the page in seq order and stops;
 * - text, or two filters or more: an external-content FTS5 index (kept by triggers; it stores no
 *   text of its own) over tool, input summary and error message, plus `facets`, a generated column
 *   of one opaque token per filter value (agent, status, tool, provider), so FTS intersects
 *   sorted doclists instead of SQLite visiting rows that fail a filter;
 * - time: `started_out_of_order` marks the rare call that started earlier than a call before it
 *   (the clock went back). Among the others start time never decreases with seq, so a time range
 *   is a seq range found with two index probes; the marked ones have their own small index.
 */
const historySchema = `
create table action_calls_v2 (
  seq integer primary key autoincrement,
  id text not null unique,
  agent_id text,
  session_id text,
  tool text not null,
  status text not null check (status in ('running','success','error','blocked','approval_required','timed_out','cancelled','interrupted')),
  input_summary_json text not null,
  policy_json text,
  approval_json text,
  provider_id text,
  provider_json text,
  exit_code integer,
  stdout text,
  stdout_log text,
  stdout_sha256 text,
  stdout_truncated integer not null default 0,
  stderr text,
  stderr_log text,
  stderr_sha256 text,
  stderr_truncated integer not null default 0,
  artifacts_json text not null default '[]',
  lineage_json text not null default '[]',
  error_code text,
  error_message text,
  result_json text,
  started_at text not null,
  started_out_of_order integer not null default 0,
  finished_at text,
  duration_ms integer,
  chain_seq integer unique,
  prev_hash text,
  hash text,
  facets text generated always as (
    'a' || hex(coalesce(agent_id, '')) || ' s' || hex(status) || ' t' || hex(tool) || ' p' || hex(coalesce(provider_id, ''))
  ) virtual
);
insert into action_calls_v2 (seq, id, agent_id, session_id, tool, status, input_summary_json, provider_id, result_json, started_at, started_out_of_order, finished_at, duration_ms)
  select seq, id, agent_id, session_id, tool,
    case when status in ('running','success','error','blocked','approval_required','timed_out','cancelled','interrupted') then status else 'interrupted' end,
    input_json, provider_id, result_json, started_at,
    coalesce(started_at < max(started_at) over (order by seq rows between unbounded preceding and 1 preceding), 0),
    finished_at, duration_ms
  from action_calls order by seq;
drop table action_calls;
alter table action_calls_v2 rename to action_calls;
create index action_calls_agent on action_calls(agent_id, seq);
create index action_calls_tool on action_calls(tool, seq);
create index action_calls_status on action_calls(status, seq);
create index action_calls_provider on action_calls(provider_id, seq);
create index action_calls_started on action_calls(started_at, seq) where started_out_of_order = 0;
create index action_calls_started_late on action_calls(started_at, seq) where started_out_of_order = 1;
create virtual table action_calls_text using fts5(
  tool, input_summary_json, error_message, facets,
  content = 'action_calls', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2'
);
insert into action_calls_text(action_calls_text) values ('rebuild');
create trigger action_calls_text_insert after insert on action_calls begin
  insert into action_calls_text (rowid, tool, input_summary_json, error_message, facets)
    values (new.seq, new.tool, new.input_summary_json, new.error_message, new.facets);
end;
create trigger action_calls_text_update after update of agent_id, tool, status, provider_id, input_summary_json, error_message on action_calls
  when old.input_summary_json is not new.input_summary_json or old.error_message is not new.error_message or old.facets is not new.facets begin
  insert into action_calls_text (action_calls_text, rowid, tool, input_summary_json, error_message, facets)
    values ('delete', old.seq, old.tool, old.input_summary_json, old.error_message, old.facets);
  insert into action_calls_text (rowid, tool, input_summary_json, error_message, facets)
    values (new.seq, new.tool, new.input_summary_json, new.error_message, new.facets);
end;
create trigger action_calls_text_delete after delete on action_calls begin
  insert into action_calls_text (action_calls_text, rowid, tool, input_summary_json, error_message, facets)
    values ('delete', old.seq, old.tool, old.input_summary_json, old.error_message, old.facets);
end;
alter table sessions add column last_seen_at text;
alter table sessions add column end_reason text;
`

function upgradeHistory(db: Database): void {
  db.exec(historySchema)
  const finished = db.prepare("select seq from action_calls where status != 'running' order by seq").pluck().all() as number[]
  for (const seq of finished) appendToChain(db, seq)
}

/**
 * Version 3: skills (SPEC §6.4); the session taint of SPEC §6.3 is `sessions.taint` since version 1.
 * A skill's files live in
 * the agent's workspace, which the agent can write; what was approved lives here, out of its reach:
 * each revision's content hash and file manifest, and its state.
 */
const skillsSchema = `
create table skill_revisions (
  id text primary key,
  agent_id text not null,
  name text not null,
  revision integer not null check (revision >= 1),
  description text not null,
  content_hash text not null,
  manifest_json text not null,
  state text not null check (state in ('pending_approval', 'approved', 'rejected')),
  created_at text not null,
  decided_at text,
  decision_reason text,
  unique (agent_id, name, revision)
);
create index skill_revisions_agent on skill_revisions(agent_id, name, revision desc);
`

/**
 * Version 4: the operator's approval queue and remembered rules (SPEC §7) put the version 1 tables
 * to use. A queue item gains what it is (`kind`), the key identical requests of one agent share
 * while it waits (`batch_key`, batching), how many requests it stands for, and who waits for it
 * now: `waiting` calls in the console process that last noted them at `watched_at` (a heartbeat,
 * so another process, such as the CLI, can tell a live waiter from one a crash left behind). A rule
 * gains the risk flags it answers, a line for people, its last match and the item it came from.
 */
const approvalsSchema = `
alter table approvals add column kind text not null default 'action';
alter table approvals add column batch_key text;
alter table approvals add column count integer not null default 1;
alter table approvals add column waiting integer not null default 0;
alter table approvals add column watched_at text;
create index approvals_batch on approvals(batch_key) where status = 'pending';
alter table rules add column risk_flags_json text not null default '[]';
alter table rules add column description text not null default '';
alter table rules add column last_matched_at text;
alter table rules add column approval_id text;
create index rules_scope on rules(scope, agent_id) where revoked_at is null;
`

/** The doctor's reports (SPEC §9): what each provider's escape attempts found on this machine, newest last. */
const doctorSchema = `
create table doctor_reports (
  id integer primary key autoincrement,
  finished_at text not null,
  report_json text not null
);
`

/** Every migration this build knows, in order. Never edit a released one; add the next. */
/** Version 6: the egress proxy's domain rules and pinned names (SPEC §6.5). */
const networkSchema = `
create table network_rules (
  id text primary key,
  agent_id text references agents(id) on delete cascade,
  decision text not null check (decision in ('allow', 'deny', 'ask')),
  host text not null,
  port integer,
  created_at text not null
);
create table network_hosts (
  name text primary key,
  address text not null
);
`

/** Version 7: egress rules for every agent of a role. */
const networkRoleRules = `alter table network_rules add column role_id text references roles(id) on delete cascade;`

/**
 * Version 8: the audit ledger (audit-ledger.ts) that joins running history rows, approvals and
 * audit events to the tamper-evident record. `ref` is the recorded row's key as text (a call's
 * or event's seq, an approval's id), so one index `(kind, ref)` serves every lookup. Approvals keep `agent_ref`/`session_ref`, copies of who asked that SQLite's
 * `on delete set null` never rewrites. Entries for the rows already recorded are appended here,
 * in order, so a home from before verifies afterwards.
 */
const ledgerSchema = `
create table ledger (
  seq integer primary key,
  kind text not null,
  ref text not null,
  digest text not null,
  prev_hash text not null,
  hash text not null
);
create unique index ledger_step on ledger(kind, ref);
alter table approvals add column agent_ref text;
alter table approvals add column session_ref text;
update approvals set agent_ref = agent_id, session_ref = session_id;
`

function createLedger(db: Database): void {
  db.exec(ledgerSchema)
  backfillLedger(db)
}

/**
 * Version 10: what an operator watches while calls run (issue 27).
 * - `waiting_since`: when a running call began waiting for the operator's approval (null once
 *   answered). A live state, not a recorded fact: not hashed, and the wait's length is recorded in
 *   the hashed `approval_json` (`waitedMs`), which `wait_ms` reads (null for a row whose
 *   `approval_json` is not JSON: a hand-edited row must not break the usage query).
 * - `output_text`: what history search reads of a call's output (see `outputSearchText`): derived
 *   from the hashed outputs, like `facets`, so not hashed itself. Older rows get theirs from the
 *   output they kept inline.
 * - The FTS index gains `output_text`: it is rebuilt with the new column, its triggers with it.
 */
const liveSchema = `
alter table action_calls add column waiting_since text;
alter table action_calls add column output_text text;
alter table action_calls add column wait_ms integer generated always as (case when json_valid(approval_json) then json_extract(approval_json, '$.waitedMs') end) virtual;
create index action_calls_waiting on action_calls(seq) where waiting_since is not null;
drop trigger action_calls_text_insert;
drop trigger action_calls_text_update;
drop trigger action_calls_text_delete;
drop table action_calls_text;
update action_calls set output_text = nullif(trim(substr(coalesce(stdout, ''), 1, 8192) || char(10) || substr(coalesce(stderr, ''), 1, 8192)), '')
  where stdout is not null or stderr is not null;
create virtual table action_calls_text using fts5(
  tool, input_summary_json, error_message, output_text, facets,
  content = 'action_calls', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2'
);
insert into action_calls_text(action_calls_text) values ('rebuild');
create trigger action_calls_text_insert after insert on action_calls begin
  insert into action_calls_text (rowid, tool, input_summary_json, error_message, output_text, facets)
    values (new.seq, new.tool, new.input_summary_json, new.error_message, new.output_text, new.facets);
end;
create trigger action_calls_text_update after update of agent_id, tool, status, provider_id, input_summary_json, error_message, output_text on action_calls
  when old.input_summary_json is not new.input_summary_json or old.error_message is not new.error_message or old.output_text is not new.output_text or old.facets is not new.facets begin
  insert into action_calls_text (action_calls_text, rowid, tool, input_summary_json, error_message, output_text, facets)
    values ('delete', old.seq, old.tool, old.input_summary_json, old.error_message, old.output_text, old.facets);
  insert into action_calls_text (rowid, tool, input_summary_json, error_message, output_text, facets)
    values (new.seq, new.tool, new.input_summary_json, new.error_message, new.output_text, new.facets);
end;
create trigger action_calls_text_delete after delete on action_calls begin
  insert into action_calls_text (action_calls_text, rowid, tool, input_summary_json, error_message, output_text, facets)
    values ('delete', old.seq, old.tool, old.input_summary_json, old.error_message, old.output_text, old.facets);
end;
`

export const migrations: readonly Migration[] = [
  { version: 1, name: 'initial schema', up: (db) => db.exec(initialSchema) },
  { version: 2, name: 'execution history with hash chain', up: upgradeHistory },
  { version: 3, name: 'skills', up: (db) => db.exec(skillsSchema) },
  { version: 4, name: 'approval queue and rules', up: (db) => db.exec(approvalsSchema) },
  { version: 5, name: 'doctor reports', up: (db) => db.exec(doctorSchema) },
  { version: 6, name: 'egress rules and pinned names', up: (db) => db.exec(networkSchema) },
  { version: 7, name: 'egress rules per role', up: (db) => db.exec(networkRoleRules) },
  { version: 8, name: 'audit ledger of calls, approvals and events', up: createLedger },
  {
    version: 9,
    name: 'resumable MCP sessions: the client initialize and the working directory',
    up: (db) => db.exec(`alter table sessions add column mcp_initialize text; alter table sessions add column cwd text not null default ''`)
  },
  { version: 10, name: 'waiting for approval as a state, and search inside output', up: (db) => db.exec(liveSchema) },
  { version: 11, name: 'workspace checkpoints', up: (db) => db.exec(checkpointSchema) }
]

/** The schema version this build writes. */
export const latestSchemaVersion = migrations.at(-1)!.version
