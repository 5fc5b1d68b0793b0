import type Database from 'better-sqlite3'

/**
 * The decision on a prepared statement, taken from SQLite's own compilation of it: the VDBE
 * program `EXPLAIN` lists (trigger sub-programs included), not the SQL text. However the agent
 * spells `VACUUM INTO` or `ATTACH` (comments, quotes, parameters, expressions), SQLite compiles it
 * to the same instructions, and those are what is judged.
 */

/** One VDBE instruction of a prepared statement, as `EXPLAIN` lists it. */
export type ProgramStep = { opcode: string; p1: number; p2: number; p3: number; p4: string | null }

/**
 * Every opcode of SQLite 3.53 that a statement reaching only its own database may use. Left out:
 * what only a PRAGMA compiles to (JournalMode, Checkpoint, MaxPgcnt, Pagecount, IntegrityCk), and
 * any opcode a newer SQLite adds: an instruction nobody reviewed refuses the statement.
 */
const reviewedOpcodes = new Set(
  `Abortable Add AddImm Affinity AggFinal AggInverse AggStep AggStep1 AggValue And AutoCommit BeginSubrtn BitAnd
  BitNot BitOr Blob Cast Clear Close ClrSubtype CollSeq Column ColumnsUsed Compare Concat Copy Count
  CreateBtree CursorHint CursorLock CursorUnlock DecrJumpZero DeferredSeek Delete Destroy Divide DropIndex
  DropTable DropTrigger ElseEq EndCoroutine Eq Expire Explain Filter FilterAdd FinishSeek FkCheck FkCounter
  FkIfZero Found Function Ge GetSubtype Gosub Goto Gt Halt HaltIfNull IFindKey IdxDelete IdxGE IdxGT IdxInsert
  IdxLE IdxLT IdxRowid If IfEmpty IfNoHope IfNot IfNotOpen IfNotZero IfNullRow IfPos IfSizeBetween IncrVacuum
  Init InitCoroutine Insert Int64 IntCopy Integer IsNull IsTrue IsType Jump Last Le LoadAnalysis Lt MakeRecord
  MemMax Move Multiply MustBeInt Ne NewRowid Next NoConflict Noop Not NotExists NotFound NotNull Null NullRow
  Offset OffsetLimit Once OpenAutoindex OpenDup OpenEphemeral OpenPseudo OpenRead OpenWrite Or Param
  ParseSchema Permutation Prev Program PureFunc ReadCookie Real RealAffinity ReleaseReg Remainder ReopenIdx
  ResetCount ResetSorter ResultRow Return Rewind RowCell RowData RowSetAdd RowSetRead RowSetTest Rowid SCopy
  Savepoint SeekEnd SeekGE SeekGT SeekHit SeekLE SeekLT SeekRowid SeekScan Sequence SequenceTest SetCookie
  SetSubtype ShiftLeft ShiftRight SoftNull Sort SorterCompare SorterData SorterInsert SorterNext SorterOpen
  SorterSort SqlExec String String8 Subtract TableLock Trace Transaction TypeCheck VBegin VCheck VColumn
  VCreate VDestroy VFilter VInitIn VNext VOpen VRename VUpdate Vacuum Variable Yield ZeroOrNull`.split(/\s+/)
)

/** Opcodes whose P4 names the SQL function they call (shown by EXPLAIN as `name(argc)`). */
const callsFunction = new Set(['Function', 'PureFunc', 'AggStep', 'AggStep1', 'AggFinal', 'AggValue', 'AggInverse'])

/**
 * Built-in functions that reach beyond the database. ATTACH and DETACH compile to calls of the
 * internal sqlite_attach/sqlite_detach; the other two load native code (both are also off in
 * SQLite itself here: better-sqlite3 enables only the C API of load_extension, and fts3_tokenizer's
 * pointer form is disabled by default). The compiled-in set is pinned by sqlite-program.test.ts.
 */
const refusedFunctions = new Map([
  ['sqlite_attach', 'ATTACH opens another database file, and this connection may reach only its own database'],
  ['sqlite_detach', 'DETACH changes which databases this connection holds, and that is fixed by Airlock'],
  ['load_extension', 'load_extension loads native code from a file and is not allowed'],
  ['fts3_tokenizer', 'fts3_tokenizer installs native code by pointer and is not allowed']
])

/** The program SQLite compiles `sql` to (prepared as `EXPLAIN <sql>` with the same parameters). */
export function readProgram(db: Database.Database, sql: string, args: unknown[]): ProgramStep[] {
  return db.prepare(`EXPLAIN ${sql}`).all(...args) as ProgramStep[]
}

/**
 * Why this program may not run, or `undefined` when every step is reviewed and stays inside the
 * connection's own main and temp databases.
 */
export function refusalOf(program: readonly ProgramStep[]): string | undefined {
  for (const step of program) {
    if (!reviewedOpcodes.has(step.opcode)) {
      return `SQLite compiles this statement to the operation ${step.opcode}, which Airlock has not reviewed, so it is not run`
    }
    if (step.opcode === 'Vacuum' && step.p2 !== 0) {
      return 'VACUUM INTO writes a copy of the database to another file and is not allowed (plain VACUUM is)'
    }
    // Database 0 is main and 1 is temp; any other index would be an attached file.
    if (step.opcode === 'Transaction' && step.p1 > 1) return 'this statement reaches a database other than its own and is not allowed'
    if (callsFunction.has(step.opcode) && step.p4) {
      const reason = refusedFunctions.get(functionName(step.p4))
      if (reason) return reason
    }
  }
  return undefined
}

function functionName(p4: string): string {
  const open = p4.lastIndexOf('(')
  return (open < 0 ? p4 : p4.slice(0, open)).toLowerCase()
}
