import type { Database } from 'better-sqlite3'

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

/** Every migration this build knows, in order. Never edit a released one; add the next. */
export const migrations: readonly Migration[] = [
  { version: 1, name: 'initial schema', up: (db) => db.exec(initialSchema) }
]

/** The schema version this build writes. */
export const latestSchemaVersion = migrations.at(-1)!.version
