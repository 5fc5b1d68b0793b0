import { z } from 'zod'
import type { IsolationFacts } from '../../core'
import { DockerProviderError } from './docker-errors'

/** Runtime profiles (SPEC §4): strict never pulls or installs; developer and ci may, with network while installing. */
export const runtimeProfiles = {
  strict: { pull: false, installDependencies: false },
  developer: { pull: true, installDependencies: true },
  ci: { pull: true, installDependencies: true }
} as const

/** The name of a runtime profile. */
export type RuntimeProfile = keyof typeof runtimeProfiles

/** The docker provider's own config keys (other providers' keys in a shared config pass through). */
export const dockerConfigSchema = z.looseObject({
  image: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[a-z0-9][a-z0-9._/:@-]*$/i, 'is not an image reference')
    .optional(),
  language: z.enum(['python', 'nodejs', 'bash', 'go', 'cpp']).optional(),
  profile: z.enum(['strict', 'developer', 'ci']).optional(),
  /** The operator approved pulling a missing image (developer/ci profiles). */
  pullApproved: z.boolean().optional(),
  extraArgs: z.array(z.string().max(1024)).max(64).optional()
})

/** The docker provider's config, parsed. */
export type DockerConfig = z.infer<typeof dockerConfigSchema>

/** What extra `docker run` arguments change in the container and in the isolation it can claim. */
export type ExtraArgsEffect = {
  hostConfig: Record<string, unknown>
  weakened: Partial<Record<'processContained' | 'hostFilesystemRestricted' | 'privilegeEscalationBlocked' | 'syscallsRestricted', true>>
  network?: 'full'
}

/**
 * Reads the operator's extra `docker run` arguments: each one that weakens isolation is applied
 * and turns the axes it breaks false (SPEC §3.4). Unknown arguments are refused, not ignored.
 */
export function parseExtraArgs(args: readonly string[]): ExtraArgsEffect {
  const effect: ExtraArgsEffect = { hostConfig: {}, weakened: {} }
  const capAdd: string[] = []
  const binds: string[] = []
  const mounts: MountSpec[] = []
  const devices: { PathOnHost: string; PathInContainer: string; CgroupPermissions: string }[] = []
  const securityOpt: string[] = []
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    const value = () => inline ?? args[++index] ?? refuse(`${flag} needs a value`)
    switch (flag) {
      case '--privileged':
        effect.hostConfig.Privileged = true
        Object.assign(effect.weakened, { processContained: true, hostFilesystemRestricted: true, privilegeEscalationBlocked: true, syscallsRestricted: true })
        break
      case '--pid':
        if (value() !== 'host') refuse(`--pid only supports host`)
        effect.hostConfig.PidMode = 'host'
        effect.weakened.processContained = true
        break
      case '--network':
      case '--net':
        if (value() !== 'host') refuse(`--network only supports host (the policy decides other network modes)`)
        effect.hostConfig.NetworkMode = 'host'
        effect.weakened.processContained = true
        effect.network = 'full'
        break
      case '--userns':
        if (value() !== 'host') refuse(`--userns only supports host`)
        effect.hostConfig.UsernsMode = 'host'
        effect.weakened.privilegeEscalationBlocked = true
        break
      case '--cap-add':
        capAdd.push(value())
        effect.weakened.privilegeEscalationBlocked = true
        break
      case '--device': {
        const [host, inside] = value().split(':')
        devices.push({ PathOnHost: host!, PathInContainer: inside ?? host!, CgroupPermissions: 'rwm' })
        effect.weakened.hostFilesystemRestricted = true
        break
      }
      case '-v':
      case '--volume': {
        const bind = value()
        binds.push(bind)
        weakenForMount(effect, bind.split(':')[0]!)
        break
      }
      case '--mount': {
        const mount = parseMount(value())
        mounts.push(mount)
        weakenForMount(effect, mount.Source)
        break
      }
      case '--security-opt': {
        const option = value()
        securityOpt.push(option)
        if (/^seccomp[=:]unconfined$/.test(option)) effect.weakened.syscallsRestricted = true
        else if (/^(apparmor|label)[=:]/.test(option)) effect.weakened.privilegeEscalationBlocked = true
        else refuse(`--security-opt ${option} is not supported`)
        break
      }
      default:
        refuse(`${arg} is not a supported extra argument`)
    }
  }
  if (capAdd.length) effect.hostConfig.CapAdd = capAdd
  if (binds.length) effect.hostConfig.Binds = binds
  if (mounts.length) effect.hostConfig.Mounts = mounts
  if (devices.length) effect.hostConfig.Devices = devices
  if (securityOpt.length) effect.hostConfig.SecurityOpt = securityOpt
  return effect
}

/** The isolation a hardened container gives, minus what the extra arguments weakened. */
export function containerIsolation(effect: ExtraArgsEffect, networkMode: 'none' | 'proxy' | 'full'): IsolationFacts {
  return {
    processContained: !effect.weakened.processContained,
    hostFilesystemRestricted: !effect.weakened.hostFilesystemRestricted,
    privilegeEscalationBlocked: !effect.weakened.privilegeEscalationBlocked,
    syscallsRestricted: !effect.weakened.syscallsRestricted,
    mechanism: 'container',
    networkMode: effect.network ?? networkMode
  }
}

/** One `--mount` as the engine's `HostConfig.Mounts` takes it. */
export type MountSpec = { Type: 'bind' | 'volume' | 'tmpfs'; Source?: string; Target: string; ReadOnly: boolean }

/**
 * Parses `--mount type=bind,source=/a,target=/b,readonly` (docker's keys and aliases: src,
 * dst/destination, ro, readonly=true|false). Options Airlock does not apply are refused.
 */
export function parseMount(spec: string): MountSpec {
  const fields: Record<string, string> = {}
  for (const part of spec.split(',')) {
    const [key, ...rest] = part.split('=')
    const name = { src: 'source', dst: 'target', destination: 'target', ro: 'readonly' }[key!] ?? key!
    if (!['type', 'source', 'target', 'readonly'].includes(name))
      refuse(`--mount option ${JSON.stringify(key)} is not supported (type, source, target, readonly)`)
    fields[name] = rest.length ? rest.join('=') : name === 'readonly' ? 'true' : refuse(`--mount ${key} needs a value`)
  }
  const type = fields.type ?? 'volume'
  if (type !== 'bind' && type !== 'volume' && type !== 'tmpfs') refuse(`--mount type ${type} is not supported (bind, volume, tmpfs)`)
  if (!fields.target?.startsWith('/')) refuse(`--mount needs an absolute target`)
  if (type !== 'tmpfs' && !fields.source) refuse(`--mount type=${type} needs a source`)
  if (fields.readonly !== undefined && !['true', '1', 'false', '0'].includes(fields.readonly))
    refuse(`--mount readonly=${fields.readonly} is not true or false`)
  return {
    Type: type,
    ...(fields.source ? { Source: fields.source } : {}),
    Target: fields.target,
    ReadOnly: fields.readonly === 'true' || fields.readonly === '1'
  }
}

/** Any extra mount opens the host filesystem; the engine's own socket hands over the host entirely. */
function weakenForMount(effect: ExtraArgsEffect, source: string | undefined): void {
  effect.weakened.hostFilesystemRestricted = true
  if (source && /(^|\/)(docker|containerd|podman)\.sock$/.test(source)) {
    Object.assign(effect.weakened, { processContained: true, privilegeEscalationBlocked: true, syscallsRestricted: true })
  }
}

function refuse(message: string): never {
  throw new DockerProviderError('docker.extra_args_refused', `docker extraArgs: ${message}`)
}
