import { hostname, release } from 'node:os'
import { doctorAxisNames, type DoctorAxis, type DoctorCheck, type DoctorProviderResult, type DoctorReport } from '@shared/ipc/doctor'
import { isolationFactsSchema, type IsolationFacts } from '@shared/resources'
import type { ExecutionResourceManager, ExecutionResourceProvider, ProgramRunner, ResourceHandle } from '../../core'
import { doctorChecks, type DoctorCheckSpec } from './doctor-checks'
import { openDoctorStage, type DoctorStage } from './doctor-stage'

/** How the doctor runs: the manager whose code-execution providers it checks, where its stage goes, and the corpus. */
export type DoctorOptions = {
  manager: ExecutionResourceManager
  /** Folder for the run's stage (`<home>/doctor`); must be searchable by the sandbox uid, as the workspaces are. */
  stageDir: string
  checks?: readonly DoctorCheckSpec[]
  now?: () => Date
}

/**
 * The doctor (SPEC §9): for every registered code-execution provider, the availability probe with
 * the reason and how to fix it, then, for each isolation axis the provider claims on this machine,
 * the escape attempts of `doctorChecks` run through the provider's own handle. An axis is
 * `verified` only when every attempt for it held, judged on the host. A provider that claims no
 * axis (trusted_local) is reported unisolated and is not attacked: its "escapes" would be real.
 */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const now = options.now ?? (() => new Date())
  const startedAt = now().toISOString()
  const providers: DoctorProviderResult[] = []
  const candidates = options.manager.registeredProviders().filter((provider) => provider.supportedKinds.includes('code_execution'))
  for (const provider of candidates) {
    const stage = await openDoctorStage(options.stageDir)
    try {
      providers.push(await checkProvider(options.manager, provider, stage, options.checks ?? doctorChecks))
    } finally {
      await stage.close()
    }
  }
  return { startedAt, finishedAt: now().toISOString(), machine: machineLine(), providers }
}

async function checkProvider(
  manager: ExecutionResourceManager,
  provider: ExecutionResourceProvider,
  stage: DoctorStage,
  checks: readonly DoctorCheckSpec[]
): Promise<DoctorProviderResult> {
  const providerId = provider.providerId
  const policy = { workspaceRoots: [stage.workspace], networkMode: 'none' as const, timeoutSeconds: 20 }
  // Only probed, never ensured: built like the Providers view's probe, not declared to the manager.
  const requirement = {
    kind: 'code_execution',
    requirementId: `doctor:${providerId}`,
    providerId,
    scope: 'request' as const,
    resourceKey: 'code_execution',
    policy
  }
  let probe: Awaited<ReturnType<ExecutionResourceProvider['probe']>>
  try {
    probe = await provider.probe({ requirement, policy })
  } catch (error) {
    probe = { available: false, reason: `probe failed: ${messageOf(error)}` }
  }
  const parsed = isolationFactsSchema.safeParse(probe.capabilities?.isolation)
  const facts = parsed.success ? parsed.data : undefined
  const claimed = claimedAxes(facts)
  const language = pickLanguage(probe.capabilities?.languages)
  const base = { providerId, available: probe.available, ...(probe.reason ? { reason: probe.reason } : {}), ...(facts ? { mechanism: facts.mechanism } : {}) }
  const fix = fixFor(providerId, probe.available, probe.reason, language)
  if (claimed.size === 0 || !probe.available) return { ...base, ...(fix ? { fix } : {}), axes: axesOf(claimed, []), checks: [] }

  let handle: ResourceHandle | undefined
  const results: DoctorCheck[] = []
  try {
    handle = await manager.ensure({
      kind: 'code_execution',
      providerId,
      scope: 'request',
      policy,
      ...(language ? { requiredCapabilities: { languages: [language] } } : {})
    })
    const runner = handle.resource as ProgramRunner
    for (const check of checks) {
      if (!claimed.has(check.axis)) continue
      results.push(await attempt(runner, check, stage))
    }
  } catch (error) {
    const reason = `could not start a ${providerId} sandbox: ${messageOf(error)}`
    const failedFix = fixFor(providerId, false, reason, language)
    return { ...base, available: false, reason, ...(failedFix ? { fix: failedFix } : {}), axes: axesOf(claimed, results), checks: results }
  } finally {
    if (handle) await manager.release(handle).catch(() => undefined)
  }
  return { ...base, axes: axesOf(claimed, results), checks: results }
}

async function attempt(runner: ProgramRunner, check: DoctorCheckSpec, stage: DoctorStage): Promise<DoctorCheck> {
  const base = { id: check.id, axis: check.axis, attack: check.attack }
  try {
    const result = await runner.run({ command: check.command(stage), timeoutSeconds: 15 })
    const verdict = await check.judge(result, stage)
    return { ...base, outcome: verdict.held ? 'held' : 'escaped', detail: verdict.detail }
  } catch (error) {
    return { ...base, outcome: 'error', detail: messageOf(error) }
  }
}

/** The axes a provider claims from its observed facts; `networkOff` when its network mode is none. */
function claimedAxes(facts: IsolationFacts | undefined): Set<DoctorAxis> {
  const claimed = new Set<DoctorAxis>()
  if (!facts) return claimed
  for (const axis of doctorAxisNames) if (axis === 'networkOff' ? facts.networkMode === 'none' : facts[axis]) claimed.add(axis)
  return claimed
}

/** Each axis with its status: `not_claimed`, `failed` on any escape, `verified` when every attempt held, else `unverified`. */
function axesOf(claimed: Set<DoctorAxis>, results: readonly DoctorCheck[]): DoctorProviderResult['axes'] {
  return doctorAxisNames.map((axis) => {
    const tried = results.filter((result) => result.axis === axis)
    const held = tried.filter((result) => result.outcome === 'held').length
    if (!claimed.has(axis)) return { axis, claimed: false, status: 'not_claimed' as const, held: 0, tried: 0 }
    if (tried.some((result) => result.outcome === 'escaped')) return { axis, claimed: true, status: 'failed' as const, held, tried: tried.length }
    if (tried.length === 0 || held < tried.length) return { axis, claimed: true, status: 'unverified' as const, held, tried: tried.length }
    return { axis, claimed: true, status: 'verified' as const, held, tried: tried.length }
  })
}

/** bash when the provider offers it (every check is a bash line), else the first language it has. */
function pickLanguage(languages: unknown): string | undefined {
  if (!Array.isArray(languages) || languages.length === 0) return undefined
  return languages.includes('bash') ? 'bash' : typeof languages[0] === 'string' ? languages[0] : undefined
}

/** What an operator does about an unavailable provider, in one line. */
export function fixFor(providerId: string, available: boolean, reason: string | undefined, language: string | undefined): string | undefined {
  const text = reason ?? ''
  if (providerId === 'trusted_local') return 'Runs on the host as you, without isolation; enable it per agent (allowUnsafeLocal) only for code you trust.'
  if (providerId === 'bubblewrap' && !available) {
    if (/not found|ENOENT|not installed/i.test(text)) return 'Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap).'
    if (/namespace|AppArmor|permission|EPERM/i.test(text))
      return 'Unprivileged user namespaces are blocked (Ubuntu 24.04+: AppArmor); see README → Troubleshooting for the AppArmor profile or sysctl.'
    if (/search|mode 7|AIRLOCK_HOME/i.test(text)) return 'Keep AIRLOCK_HOME where the sandbox user can search it (e.g. /var/lib/airlock), not under /root.'
    return 'See README → Troubleshooting (bubblewrap).'
  }
  if (providerId === 'gvisor' && !available) {
    if (/runsc not found|Install gVisor/i.test(text))
      return 'Install gVisor (Debian/Ubuntu: apt install runsc; elsewhere: https://gvisor.dev/docs/user_guide/install/).'
    if (/as root/i.test(text)) return 'gvisor runs when Airlock runs as root; as an ordinary user, bubblewrap takes its place in the order.'
    return 'See README → Troubleshooting (gvisor).'
  }
  if (providerId === 'docker') {
    if (/image/i.test(text) || (available && !language))
      return `Provision an image: airlock images provision ${language ?? 'bash'} --offline (or from the Providers view).`
    if (!available) return 'Start the Docker engine (sudo systemctl start docker, or Docker Desktop) and make its socket reachable (or set DOCKER_HOST).'
  }
  return undefined
}

function machineLine(): string {
  return `${hostname()} · ${process.platform}-${process.arch} · kernel ${release()} · node ${process.versions.node}${process.getuid?.() === 0 ? ' · running as root' : ''}`
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300)
}
