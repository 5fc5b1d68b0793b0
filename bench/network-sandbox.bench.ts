import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { it } from 'vitest'
import { createHost } from '../src/main/host'
import { makeTempDir } from '../test/support/temp-home'
import { startDownloadServer } from './support/download-server'
import { compareThroughput, record } from './support/measure'

const execFileAsync = promisify(execFile)

/**
 * The egress path end to end (issue 14): `curl` in a real bubblewrap sandbox downloads 100 MB from
 * a loopback server through everything a proxied run goes through (the in-sandbox bridge on
 * 127.0.0.1:3128, the egress socket, the proxy's decision and tunnel), against the same `curl` on
 * the host straight from the server, in the same run:
 * - `network.sandboxed_download.ratio_vs_direct`: MB/s through the sandbox's way out vs direct
 *   (higher is better; the proxy's own figure, `network.proxy_throughput`, has the goal ≥ 0.8).
 * Each sandboxed sample is one `run_command` call through a host (policy, dispatch, history
 * included); at 100 MB a call's own cost is a small part of the time.
 */
it('network: a download from inside a bubblewrap sandbox through the egress bridge and proxy', async () => {
  const totalMb = 100
  const server = await startDownloadServer(totalMb)
  const port = server.port
  const dir = makeTempDir('airlock-bench-net-sandbox-', { outsideTmp: true })
  const host = createHost({ home: dir.path, logError: () => undefined })
  try {
    await host.recovered
    host.store.network.addHost({ name: 'pkgs.test', address: '127.0.0.1' })
    host.store.network.addRule({ agentId: null, decision: 'allow', host: 'pkgs.test' })
    host.agents.service.create('fetcher', {
      profile: { capabilities: ['shell'], providers: ['bubblewrap'], network: 'proxy', ask: 'never', allowlist: ['curl'] }
    })
    const { sessionId } = host.agents.sessions.start('fetcher', 'bench')
    const curl = ['-sS', '-o', '/dev/null', '-w', '%{time_total}']
    const sandboxed = async () => {
      const result = await host.agents.sessions.execute({
        sessionId,
        tool: 'run_command',
        input: { command: `curl ${curl.join(' ')} http://pkgs.test:${port}/big` }
      })
      const data = result.data as { exitCode: number; stdout: string; stderr: string } | undefined
      if (!data || data.exitCode !== 0) throw new Error(`the sandboxed download failed: ${JSON.stringify(result.error ?? data)}`)
      return Number(data.stdout)
    }
    const direct = async () => Number((await execFileAsync('curl', [...curl, `http://127.0.0.1:${port}/big`])).stdout)
    record('network-sandbox', [
      await compareThroughput({
        name: 'network.sandboxed_download.ratio_vs_direct',
        megabytes: totalMb,
        pipeline: sandboxed,
        baseline: direct,
        note: `${totalMb} MB: curl in a bubblewrap sandbox through the bridge, the egress socket and the proxy (curl's own transfer time) vs curl on the host straight from the loopback server; higher is better`
      })
    ])
  } finally {
    await host.dispose()
    server.stop()
    dir.remove()
  }
}, 600_000)
