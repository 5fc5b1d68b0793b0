import { spawn } from 'node:child_process'
import { it } from 'vitest'
import { airlockBin, runAirlock } from '../test/support/run-cli'
import { makeTempDir } from '../test/support/temp-home'
import { compare, record } from './support/measure'

/**
 * What an operator waits for at the terminal, whole process from spawn to exit (issue 29):
 * - `cli.approvals_list_ms`: `airlock approvals list` on a home with one agent (reads the database).
 * - `cli.policy_check_ms`: `airlock policy check --agent A -- 'ls -la | wc -l'` (loads the shell
 *   parser and decides like the dispatcher).
 * Goal: median ≤ 300 ms. Baseline: `node -e ''` spawned the same way in the same run (what Node's
 * own start costs), alternating with the command.
 */
it('cli: short commands', async () => {
  const home = makeTempDir('airlock-bench-cli-')
  try {
    const created = runAirlock(['agent', 'create', 'a1', '--home', home.path])
    if (created.code !== 0) throw new Error(created.stderr)
    const bare = () => exit([process.execPath, '-e', ''])
    const results = [
      await compare({
        name: 'cli.approvals_list_ms',
        samples: 30,
        pipeline: () => exit([process.execPath, airlockBin, 'approvals', 'list', '--home', home.path]),
        baseline: bare,
        note: 'spawn to exit; baseline: node -e ""; goal median ≤ 300 ms'
      }),
      await compare({
        name: 'cli.policy_check_ms',
        samples: 30,
        pipeline: () => exit([process.execPath, airlockBin, 'policy', 'check', '--agent', 'a1', '--home', home.path, '--', 'ls -la | wc -l']),
        baseline: bare,
        note: 'spawn to exit; baseline: node -e ""; goal median ≤ 300 ms'
      })
    ]
    record('cli', results)
  } finally {
    home.remove()
  }
})

function exit([program, ...args]: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program!, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`))))
  })
}
