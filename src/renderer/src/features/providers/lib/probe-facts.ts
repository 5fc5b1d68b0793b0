import type { ProviderView } from '@shared/ipc'
import { doctorAxisNames, type DoctorAxis, type DoctorAxisStatus, type DoctorProviderResult, type DoctorReport } from '@shared/ipc/doctor'
import type { IsolationFacts } from '@shared/resources'

/** One kind's probe record as `providers.list` returns it. */
export type KindProbe = ProviderView['probes'][number]

/** How a probe reads at a glance: available, unavailable, or probed per agent (not here). */
export type ProbeVerdict = { label: 'available' | 'unavailable' | 'per agent' | 'not registered' | 'probing'; tone: 'ok' | 'bad' | 'neutral' | 'warn' }

/** The verdict of a probe (or of a candidate whose provider is not registered in this build). */
export function probeVerdict(probe: KindProbe | undefined): ProbeVerdict {
  if (!probe) return { label: 'not registered', tone: 'warn' }
  if (!probe.probed) return { label: 'per agent', tone: 'neutral' }
  return probe.available ? { label: 'available', tone: 'ok' } : { label: 'unavailable', tone: 'bad' }
}

/** A provider's probe for one kind, if it serves that kind. */
export function probeOfKind(provider: ProviderView | undefined, kind: string): KindProbe | undefined {
  return provider?.probes.find((probe) => probe.kind === kind)
}

/** Plain words for each isolation axis (SPEC §3.4), and for the network being off. */
export const axisLabels: Record<DoctorAxis, { label: string; meaning: string }> = {
  processContained: { label: 'Process contained', meaning: 'the code cannot see or signal host processes' },
  hostFilesystemRestricted: {
    label: 'Host filesystem restricted',
    meaning: 'only the granted workspace is writable; the rest of the host is hidden or read-only'
  },
  privilegeEscalationBlocked: { label: 'Privilege escalation blocked', meaning: 'no root, capabilities dropped, no setuid gain' },
  syscallsRestricted: { label: 'Syscalls restricted', meaning: 'a seccomp filter refuses dangerous system calls' },
  networkOff: { label: 'Network off', meaning: 'no connection leaves the sandbox, not even to the host' }
}

/**
 * A provider's isolation in a line of plain words: its mechanism, whose kernel serves the code
 * ("separate kernel" only where the provider claims one of its own), and its network.
 */
export function isolationWords(isolation: IsolationFacts): string {
  const isolating = isolation.processContained || isolation.hostFilesystemRestricted
  const kernel = isolation.kernel === 'separate' ? 'separate kernel' : isolating ? 'shares the host kernel' : undefined
  return [isolation.mechanism, kernel, `network ${isolation.networkMode}`].filter(Boolean).join(' · ')
}

/** One axis row: what the probe claims, and what the doctor found (`not_run` before it ran). */
export type AxisRow = {
  axis: DoctorAxis
  label: string
  meaning: string
  claimed: boolean
  verified: DoctorAxisStatus | 'not_run'
  /** Why the attempts could not run (an unverified axis): each failed attempt, or the provider's reason. */
  unverifiedWhy: string[]
  held: number
  tried: number
  /** The attempts that got through, in words. */
  escapes: string[]
}

/** The axes of a probe's isolation facts (network off when its mode is none), with the doctor's findings when it ran. */
export function axisRows(isolation: IsolationFacts, doctor?: DoctorProviderResult): AxisRow[] {
  return doctorAxisNames.map((axis) => {
    const claimed = axis === 'networkOff' ? isolation.networkMode === 'none' : isolation[axis]
    const found = doctor?.axes.find((entry) => entry.axis === axis)
    const checks = (doctor?.checks ?? []).filter((check) => check.axis === axis)
    const escapes = checks.filter((check) => check.outcome === 'escaped').map((check) => `${check.attack}: ${check.detail}`)
    // Why an axis stayed unverified: the attempts that could not run say so (as the CLI doctor prints them),
    // else the provider's own reason for being unavailable.
    const errors = checks.filter((check) => check.outcome === 'error').map((check) => `${check.attack}: ${check.detail}`)
    const unverifiedWhy = errors.length > 0 ? errors : doctor && !doctor.available && doctor.reason ? [doctor.reason] : []
    return {
      axis,
      ...axisLabels[axis],
      claimed,
      verified: found?.status ?? 'not_run',
      held: found?.held ?? 0,
      tried: found?.tried ?? 0,
      escapes,
      unverifiedWhy
    }
  })
}

/** How many of the axes the isolation table shows (the four, and the network off) a probe claims. */
export function claimedAxisCount(isolation: IsolationFacts | undefined): number {
  return isolation ? axisRows(isolation).filter((row) => row.claimed).length : 0
}

/** How many axes the isolation table shows. */
export const shownAxisCount = doctorAxisNames.length

/** A probe's reason split into what is wrong and, when the provider said it, how to fix it. */
export type ReasonParts = { cause: string; fix?: string }

// Providers write their fix into the reason ("… Fix: sudo sysctl …", "… . Install bubblewrap (…)").
const fixStart = /(?:^|[.;)]\s+)(Fix:\s*|(?=(?:Install|Start|Set|Run|Add|Give|Enable|Allow)\b))/

/** Splits a probe reason into its cause and the fix the provider wrote into it, if any. */
export function splitReason(reason: string): ReasonParts {
  const match = fixStart.exec(reason)
  if (!match || match.index === 0) return { cause: reason }
  const head = reason.slice(0, match.index + (match[0].length - match[1]!.length)).replace(/[\s.;]+$/, '')
  const fix = reason.slice(match.index + match[0].length).trim()
  return fix ? { cause: head, fix } : { cause: reason }
}

/**
 * How to fix an unavailable probe: the fix the provider gave, else what Airlock knows about the
 * provider (trusted_local is authorised per agent; a workspace-bound provider is probed per call).
 */
export function fixFor(providerId: string, probe: KindProbe): string | undefined {
  if (!probe.probed || probe.available || !probe.reason) return undefined
  const { fix } = splitReason(probe.reason)
  if (fix) return fix
  if (providerId === 'trusted_local') {
    return "Nothing to fix if you want it off. To authorise it for one agent, set allowUnsafeLocal: true in that agent's profile (Agents view): its code then runs on this machine with no isolation at all."
  }
  if (/invalid \S+ config/.test(probe.reason)) {
    return "This probe ran with the provider's default config, which it does not accept: each call brings its own (the agent's profile, or a candidate's config above). Only if agents' calls fail with this reason is there a config to correct."
  }
  if (/engine|docker/i.test(probe.reason))
    return 'Start the Docker engine (sudo systemctl start docker, or Docker Desktop) or set DOCKER_HOST, then probe again.'
  return 'Fix what the reason names on this machine, then probe again.'
}

/** A doctor report in one line: "10 axes verified, 1 failed (docker: networkOff), 4 unverified". */
export function doctorSummary(report: DoctorReport): string {
  const axes = report.providers.flatMap((provider) => provider.axes.map((axis) => ({ ...axis, providerId: provider.providerId })))
  const of = (status: DoctorAxisStatus) => axes.filter((axis) => axis.status === status)
  const failed = of('failed')
  const parts = [`${of('verified').length} axes verified`]
  parts.push(failed.length > 0 ? `${failed.length} failed (${failed.map((axis) => `${axis.providerId}: ${axis.axis}`).join(', ')})` : '0 failed')
  if (of('unverified').length > 0) parts.push(`${of('unverified').length} unverified`)
  return `${parts.join(', ')}.`
}
