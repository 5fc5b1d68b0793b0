// The escape corpus (see escape-corpus-cases.ts), Airlock's own file handling: the file tools
// given planted symlinks, hard links and hostile special files, the same tools raced against a
// sandboxed command swapping a directory for a symlink (TOCTOU), and the workspace's .exec_history
// that Airlock appends to after every call.
import { linkSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { printed, refusedAll, sh, tool, type EscapeCase, type Outcome } from './escape-corpus-case'
import type { CaseContext } from './escape-corpus-stage'

/** A racer that swaps `a` (a directory) and `b` (a symlink to the case's outside folder) for three seconds. */
function racer(ctx: CaseContext, setup: string, a: string, b: string): string {
  const loop = [
    'import ctypes, time',
    'libc = ctypes.CDLL(None, use_errno=True)',
    "open('race-ready', 'w').close()",
    'end = time.time() + 3',
    'n = 0',
    'while time.time() < end:',
    // Only swaps that happened count: a kernel without RENAME_EXCHANGE must not pass for a live race.
    `    if libc.renameat2(-100, b'${a}', -100, b'${b}', 2) == 0: n += 1`,
    "print('swaps', n)"
  ].join('\n')
  return `${setup} && ln -sfn ${ctx.outside} ${b} && python3 -c "${loop}"`
}

/**
 * Every raced call either worked inside the workspace or was refused by a file-tool boundary,
 * never an internal error; the tools met the symlink (the race was live) and also the directory.
 */
const raceOutcome = (outcome: Outcome) => {
  expect(outcome.results.length).toBeGreaterThan(1)
  for (const result of outcome.results)
    if (!result.ok)
      expect(result.error?.code).toMatch(
        /^workspace_file\.(changed_during_operation|outside_workspace|symlink_loop|not_found|not_directory|no_match|not_regular_file|is_directory)$/
      )
  expect(outcome.results.some((result) => /^workspace_file\.(outside_workspace|changed_during_operation|symlink_loop)$/.test(result.error?.code ?? ''))).toBe(
    true
  )
  expect(outcome.results.some((result) => result.ok)).toBe(true)
}

/** The file tools given what a sandboxed command can plant in the workspace. */
export const fileToolCases: EscapeCase[] = [
  {
    id: 'tool-read-dotdot',
    area: 'file-tools',
    attack: "read_file ../victim/notes.txt (another agent's workspace)",
    unisolated: 'holds',
    attempt: () => [tool('read_file', { path: '../victim/notes.txt' })],
    expect: refusedAll('invalid_input')
  },
  {
    id: 'tool-read-absolute',
    area: 'file-tools',
    attack: 'read_file at an absolute host path',
    unisolated: 'holds',
    attempt: (ctx) => [tool('read_file', { path: `${ctx.outside}/secret.txt` })],
    expect: refusedAll('invalid_input')
  },
  {
    id: 'tool-read-symlink',
    area: 'file-tools',
    attack: 'a sandboxed command plants a symlink to a host secret; read_file follows it',
    unisolated: 'holds',
    prepare: (ctx) => [sh(`ln -s ${ctx.outside}/secret.txt link.txt`)],
    attempt: () => [tool('read_file', { path: 'link.txt' })],
    expect: refusedAll('workspace_file.outside_workspace')
  },
  {
    id: 'tool-write-symlink-dir',
    area: 'file-tools',
    attack: 'a planted directory symlink to a host folder; write_file through it',
    unisolated: 'holds',
    prepare: (ctx) => [sh(`ln -s ${ctx.outside} dir-link`)],
    attempt: (ctx) => [tool('write_file', { path: `dir-link/pwned-${ctx.caseId}`, content: 'pwned' })],
    expect: refusedAll('workspace_file.outside_workspace')
  },
  {
    id: 'tool-edit-symlink',
    area: 'file-tools',
    attack: 'a planted symlink to a host file; edit_file through it',
    unisolated: 'holds',
    prepare: (ctx) => [sh(`ln -s ${ctx.outside}/target.txt t.txt`)],
    attempt: () => [tool('edit_file', { path: 't.txt', oldText: 'original', newText: 'pwned' })],
    expect: refusedAll('workspace_file.outside_workspace')
  },
  {
    id: 'tool-list-symlink',
    area: 'file-tools',
    attack: 'list_directory and search_files through a planted directory symlink',
    unisolated: 'holds',
    prepare: (ctx) => [sh(`ln -s ${ctx.outside} dir-link`)],
    attempt: () => [tool('list_directory', { path: 'dir-link' }), tool('search_files', { pattern: 'airlock-corpus', path: 'dir-link' })],
    expect: refusedAll('workspace_file.outside_workspace')
  },
  {
    id: 'tool-recursive-symlink',
    area: 'file-tools',
    attack: 'list_directory and search_files recurse from the workspace root into a planted directory symlink',
    unisolated: 'holds',
    prepare: (ctx) => [sh(`mkdir -p deep && ln -s ${ctx.outside} deep/link && echo inside > deep/file.txt`)],
    attempt: () => [tool('list_directory', { path: '.', recursive: true }), tool('search_files', { pattern: 'airlock-corpus-outside', path: '.' })],
    expect: (outcome) => {
      const [listing, search] = outcome.results
      expect(listing).toMatchObject({ status: 'success' })
      const entries = (listing!.data as { entries: { name: string; type: string }[] }).entries
      expect(entries.find((entry) => entry.name === 'deep/link')).toMatchObject({ type: 'symlink' })
      expect(entries.filter((entry) => entry.name.startsWith('deep/link/'))).toEqual([])
      expect(search).toMatchObject({ status: 'success', data: { matches: [] } })
    }
  },
  {
    id: 'tool-cwd-symlink',
    area: 'file-tools',
    attack: 'run_command with its cwd set to a planted directory symlink to a host folder',
    unisolated: 'holds',
    prepare: (ctx) => [sh(`ln -s ${ctx.outside} dir-link`)],
    attempt: (ctx) => [tool('run_command', { command: `pwd; echo pwned > pwned-${ctx.caseId}`, cwd: 'dir-link' })],
    expect: refusedAll('run_command.cwd_refused')
  },
  {
    id: 'tool-exec-history-symlink',
    area: 'file-tools',
    attack: "replace the workspace's .exec_history (appended to by Airlock after every call) with a symlink to a host file",
    unisolated: 'holds',
    attempt: (ctx) => [sh(`rm -f .exec_history && ln -s ${ctx.outside}/target.txt .exec_history && echo planted`), sh('echo another call')],
    expect: printed('another call')
  },
  {
    id: 'tool-exec-history-fifo',
    area: 'file-tools',
    attack: 'replace .exec_history with a FIFO (Airlock would block opening it)',
    unisolated: 'holds',
    attempt: () => [sh('rm -f .exec_history && mkfifo .exec_history && echo planted'), sh('echo another call')],
    expect: printed('another call')
  },
  {
    id: 'tool-hardlink',
    area: 'file-tools',
    attack: 'hard links to host files in the workspace (as an unisolated run could make): read_file, write_file, edit_file on them',
    unisolated: 'holds',
    hostPrepare: (ctx) => {
      linkSync(join(ctx.outside, 'secret.txt'), join(ctx.workspace, 'hl-secret.txt'))
      linkSync(join(ctx.outside, 'target.txt'), join(ctx.workspace, 'hl-target.txt'))
    },
    attempt: () => [
      tool('read_file', { path: 'hl-secret.txt' }),
      tool('write_file', { path: 'hl-target.txt', content: 'pwned\n' }),
      tool('edit_file', { path: 'hl-target.txt', oldText: 'original', newText: 'pwned' })
    ],
    expect: refusedAll('workspace_file.hard_link')
  }
]

/** The file tools raced against a sandboxed command that swaps a directory for a symlink (TOCTOU). */
export const raceCases: EscapeCase[] = [
  {
    id: 'race-write',
    area: 'race',
    attack: 'write_file into race/d while a sandboxed command swaps race/d with a symlink to a host folder (RENAME_EXCHANGE)',
    unisolated: 'holds',
    alone: true,
    attempt: (ctx) => ({
      race: { racer: racer(ctx, 'mkdir -p race/d', 'race/d', 'race/l'), victim: (i) => tool('write_file', { path: `race/d/landed-${i}.txt`, content: 'x' }) }
    }),
    expect: raceOutcome
  },
  {
    id: 'race-read',
    area: 'race',
    attack: 'read_file race/d/secret.txt while race/d is swapped with a symlink to a folder holding the host secret',
    unisolated: 'holds',
    alone: true,
    attempt: (ctx) => ({
      race: {
        racer: racer(ctx, "mkdir -p race/d && printf 'decoy\\n' > race/d/secret.txt", 'race/d', 'race/l'),
        victim: () => tool('read_file', { path: 'race/d/secret.txt' })
      }
    }),
    expect: raceOutcome
  },
  {
    id: 'race-edit',
    area: 'race',
    attack: 'edit_file race/d/target.txt while race/d is swapped with a symlink to a folder holding a matching host file',
    unisolated: 'holds',
    alone: true,
    attempt: (ctx) => ({
      race: {
        racer: racer(ctx, "mkdir -p race/d && printf 'original\\n' > race/d/target.txt", 'race/d', 'race/l'),
        victim: () => tool('edit_file', { path: 'race/d/target.txt', oldText: 'original', newText: 'pwned' })
      }
    }),
    expect: raceOutcome
  },
  {
    id: 'race-parent',
    area: 'race',
    attack: 'write_file p/c/x (creating parents) while the parent p is renamed away and replaced by a symlink to a host folder',
    unisolated: 'holds',
    alone: true,
    attempt: (ctx) => ({
      race: { racer: racer(ctx, 'mkdir -p p/c', 'p', 'pl'), victim: (i) => tool('write_file', { path: `p/c/landed-${i}.txt`, content: 'x' }) }
    }),
    expect: raceOutcome
  }
]
