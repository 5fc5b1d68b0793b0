/**
 * Version 11: workspace checkpoints (issue 28; see `console/checkpoints/`).
 * - `checkpoint_files`: what the host last saw of each workspace entry (stat facts and the content
 *   hash), per agent; a walk compares against it so unchanged files cost one lstat.
 * - `checkpoints`: one per call that changed something (`call`), per set of changes found between
 *   calls (`outside`), and per operator revert or restore; ordered by `seq`. Pruned ones keep
 *   their row (`pruned_at`) and lose their changes.
 * - `checkpoint_changes`: each entry a checkpoint changed, with its state before and after
 *   (kind, mode, size, content hash; `kept` when the content is in the store). Paths are bytes:
 *   a name may hold a newline or invalid UTF-8.
 * - `checkpoint_objects`: the content store's files (`<home>/checkpoints/objects/`), by hash.
 */
export const checkpointSchema = `
create table checkpoint_files (
  agent_id text not null,
  path blob not null,
  kind text not null,
  mode integer not null,
  size integer not null,
  mtime_ms real not null,
  ctime_ms real not null,
  ino integer not null,
  blocks integer not null,
  uid integer not null default -1,
  gid integer not null default -1,
  hash text,
  kept integer not null,
  primary key (agent_id, path)
) without rowid;
create table checkpoints (
  seq integer primary key autoincrement,
  id text not null unique,
  agent_id text not null,
  call_id text,
  kind text not null check (kind in ('call','outside','revert','restore')),
  created_at text not null,
  files integer not null,
  new_bytes integer not null,
  note text,
  pruned_at text
);
create index checkpoints_agent on checkpoints(agent_id, seq);
create index checkpoints_call on checkpoints(call_id);
create table checkpoint_changes (
  checkpoint_seq integer not null,
  path blob not null,
  change text not null,
  before_kind text, before_mode integer, before_size integer, before_hash text, before_kept integer, before_uid integer, before_gid integer,
  after_kind text, after_mode integer, after_size integer, after_hash text, after_kept integer, after_uid integer, after_gid integer,
  primary key (checkpoint_seq, path)
) without rowid;
create index checkpoint_changes_before on checkpoint_changes(before_hash);
create index checkpoint_changes_after on checkpoint_changes(after_hash);
create index checkpoint_files_hash on checkpoint_files(hash);
create table checkpoint_objects (
  hash text primary key,
  bytes integer not null,
  created_at text not null
) without rowid;
`
