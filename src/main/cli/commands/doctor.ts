import type { DoctorProviderResult, DoctorReport } from '@shared/ipc/doctor'
import { visibleText } from '@shared/visible-text'
import { withCliContext } from '../../host/cli-context'
import { defineCommand } from '../command'
import { CliError, UsageError } from '../cli-error'

/**
 * `airlock doctor [--json]` (SPEC §8.1, §9): which isolation guarantees hold on this machine. Per
 * code-execution provider: available or why not and how to fix it, then each axis it claims as
 * verified / failed / unverified by real escape attempts. The report is stored for the Providers
 * view. Exit 0 when no claimed axis failed; 1 when one did (a guarantee does not hold here).
 *
 * It builds its own providers on the home (no start-up recovery: a console may be running on the
 * same home, and its resources are not the doctor's to end).
 */
export const doctorCommand = defineCommand({
  name: 'doctor',
  usage: 'airlock doctor [--json] [--home DIR]',
  options: {},
  async run({ options, positionals }, io) {
    if (positionals.length > 0) throw new UsageError(`doctor takes no arguments, got ${positionals[0]}`)
    return withCliContext({ home: options.home, create: true }, async (cli) => {
      const report = await (await cli.doctor()).run()
      if (options.json) io.out(JSON.stringify(report, null, 2))
      else for (const line of reportLines(report)) io.out(line)
      const failed = report.providers.flatMap((provider) =>
        provider.axes.filter((axis) => axis.status === 'failed').map((axis) => `${provider.providerId} ${axis.axis}`)
      )
      if (failed.length > 0) throw new CliError('isolation_failed', `claimed isolation does not hold here: ${failed.join(', ')}`)
      return 0
    })
  }
})

/** The report as the terminal shows it: one block per provider, one line per axis, a summary line. */
export function reportLines(report: DoctorReport): string[] {
  const lines = [`Airlock doctor · ${report.machine}`]
  for (const provider of report.providers) lines.push('', ...providerLines(provider))
  const axes = report.providers.flatMap((provider) => provider.axes)
  const count = (status: string) => axes.filter((axis) => axis.status === status).length
  lines.push(
    '',
    `doctor: ${report.providers.length} providers · ${count('verified')} axes verified · ${count('failed')} failed · ${count('unverified')} unverified`
  )
  return lines
}

function providerLines(provider: DoctorProviderResult): string[] {
  const claimed = provider.axes.filter((axis) => axis.claimed)
  const state = !provider.available
    ? `unavailable: ${visibleText(provider.reason ?? 'no reason given')}`
    : claimed.length === 0
      ? 'available, unisolated: it claims no isolation axis, so nothing is attempted'
      : `available${provider.mechanism ? ` · ${visibleText(provider.mechanism)}` : ''}`
  const lines = [`${provider.providerId}  ${state}`]
  const width = Math.max(...provider.axes.map((axis) => axis.axis.length))
  for (const axis of claimed) {
    const attempts = axis.tried > 0 ? `  ${axis.held}/${axis.tried} attempts held` : ''
    lines.push(`  ${axis.axis.padEnd(width)}  ${axis.status}${attempts}`)
  }
  for (const check of provider.checks.filter((check) => check.outcome !== 'held'))
    lines.push(`    ${check.outcome}: ${check.id} (${check.attack}): ${visibleText(check.detail)}`)
  if (provider.fix) lines.push(`  ${provider.available ? 'note' : 'fix'}: ${provider.fix}`)
  return lines
}
