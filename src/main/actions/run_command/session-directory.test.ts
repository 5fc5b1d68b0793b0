import { execFileSync } from 'node:child_process'
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { cwdMarker, SessionDirectories, takeCwdReport, withCwdReport, workspaceDirectory } from './session-directory'

const dir = makeTempDir('airlock-session-dir-')
afterAll(() => dir.remove())

/** Runs a wrapped command in a real bash (the same `bash -c` the runners use) and returns its stdout and status. */
function shell(command: string, cwd: string): { stdout: string; status: number } {
  try {
    return { stdout: execFileSync('bash', ['-c', command], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }), status: 0 }
  } catch (error) {
    const failed = error as { stdout: string; status: number }
    return { stdout: failed.stdout, status: failed.status }
  }
}

describe('the shell directory report', () => {
  const root = realpathSync(dir.path)
  mkdirSync(join(root, 'sub'))

  it('keeps the command output byte for byte and its exit status, and reports the final $PWD', () => {
    for (const [command, stdout, status] of [
      ['cd sub; printf "a\\nb"', 'a\nb', 0],
      ['echo out; cd sub; exit 7', 'out\n', 7],
      ['cd sub && false', '', 1]
    ] as const) {
      const marker = cwdMarker()
      const ran = shell(withCwdReport(command, marker), root)
      expect(ran.status).toBe(status)
      expect(takeCwdReport(ran.stdout, marker, false)).toEqual({ stdout, reported: join(root, 'sub') })
    }
  })

  it('a marker is random per call; a report of another marker is left in the output', () => {
    const [a, b] = [cwdMarker(), cwdMarker()]
    expect(a).not.toBe(b)
    const ran = shell(withCwdReport('true', a), root)
    expect(takeCwdReport(ran.stdout, b, false)).toEqual({ stdout: ran.stdout })
  })

  it('a report cut by the output cap is dropped without naming a directory', () => {
    const marker = cwdMarker()
    expect(takeCwdReport(`xxxx\n${marker}/wor`, marker, true)).toEqual({ stdout: 'xxxx' })
    expect(takeCwdReport(`xxxx\n${marker.slice(0, 5)}`, marker, true)).toEqual({ stdout: 'xxxx' })
    // Untruncated output that merely ends like a marker is the command's.
    expect(takeCwdReport('xxxx\nAIRL', marker, false)).toEqual({ stdout: 'xxxx\nAIRL' })
  })
})

describe('workspaceDirectory', () => {
  const workspace = realpathSync(dir.path)
  mkdirSync(join(workspace, 'a', 'b'), { recursive: true })
  mkdirSync(join(workspace, '.airlock', 'executions'), { recursive: true })
  writeFileSync(join(workspace, 'file.txt'), '')
  symlinkSync('/etc', join(workspace, 'out'))
  symlinkSync('a/b', join(workspace, 'alias'))

  it('accepts directories inside the workspace, by their real path', () => {
    expect(workspaceDirectory(workspace, 'a/b')).toEqual({ relative: join('a', 'b'), absolute: join(workspace, 'a', 'b') })
    expect(workspaceDirectory(workspace, join(workspace, 'alias'))).toEqual({ relative: join('a', 'b'), absolute: join(workspace, 'a', 'b') })
    expect(workspaceDirectory(workspace, '')).toEqual({ relative: '', absolute: workspace })
  })

  it("refuses what is outside, through a link, Airlock's own, missing or not a directory", () => {
    expect(workspaceDirectory(workspace, '/')).toEqual({ refused: 'is outside the workspace' })
    expect(workspaceDirectory(workspace, '../..')).toEqual({ refused: 'is outside the workspace' })
    expect(workspaceDirectory(workspace, 'out')).toEqual({ refused: 'leads outside the workspace through a symbolic link' })
    expect(workspaceDirectory(workspace, '.airlock/executions')).toEqual({ refused: 'is inside .airlock, which Airlock keeps' })
    expect(workspaceDirectory(workspace, 'missing')).toEqual({ refused: 'does not exist' })
    expect(workspaceDirectory(workspace, 'file.txt')).toEqual({ refused: 'is not a directory' })
    expect(workspaceDirectory(workspace, 'a\0b')).toEqual({ refused: 'contains NUL' })
  })

  it('a session directory is kept per session; back at the root it is forgotten', () => {
    const directories = new SessionDirectories()
    directories.set('one', 'a')
    expect([directories.get('one'), directories.get('two')]).toEqual(['a', ''])
    directories.set('one', '')
    expect(directories.get('one')).toBe('')
  })
})
