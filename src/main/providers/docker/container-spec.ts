import type Docker from 'dockerode'
import type { SandboxIdentity } from '../../core'
import { systemPath } from '../runner/run-limits'
import type { ExtraArgsEffect } from './docker-config'
import { containerSeccompProfile } from './seccomp-profile'

/** Limits of one container (SPEC §6.1 agent defaults when the policy does not set them). */
export type ContainerLimits = { cpuSeconds: number; memoryMb: number; pids: number }

/** Defaults for limits the policy does not set. */
export const defaultLimits: ContainerLimits = { cpuSeconds: 60, memoryMb: 1024, pids: 256 }

/** The environment every program in a container starts from (never Airlock's own). */
export const containerBaseEnv: Record<string, string> = { PATH: systemPath, HOME: '/tmp', LANG: 'C.UTF-8', TERM: 'dumb' }

/**
 * The uid of a container's idle init (tini and `sleep infinity`): unprivileged and different from
 * the run user, so code can neither signal nor write the memory of the process that keeps the
 * container alive, and `kill -9 -1` as the run user ends everything of a run but nothing else.
 */
export function keeperUser(identity: SandboxIdentity): string {
  const uid = identity.uid === 65534 ? 65533 : 65534
  return `${uid}:${uid}`
}

/** The `User` of every exec: the host's sandbox identity, numeric (never the image's user, never root). */
export function runUser(identity: SandboxIdentity): string {
  return `${identity.uid}:${identity.gid}`
}

/**
 * ICMP ping sockets (SOCK_DGRAM + IPPROTO_ICMP/ICMPV6, both families) for no group: the engine
 * opens them to every group of a container's own network namespace ("0 2147483647"), a way out
 * (ICMP to any host) without CAP_NET_RAW. A bubblewrap sandbox's fresh network namespace keeps the
 * kernel's default, "1 0"; this sets the same. The knob belongs to the network namespace, so it is
 * set where the container has one of its own (`none`, `bridge`; the egress bridge sidecar joins the
 * session container's); in the host's (`--network host`, already reported as not contained) the
 * engine refuses to set it and the host's own value applies.
 */
const noPingSockets = { 'net.ipv4.ping_group_range': '1 0' }

/**
 * The hardened host config of every Airlock container: no capabilities, no-new-privileges, the
 * allowlist seccomp profile, read-only root with small tmpfs mounts, pids/memory/cpu limits, no
 * network unless asked, no ICMP ping sockets; the operator's extra args applied on top (they were
 * already counted against the isolation axes).
 */
export function hardenedHostConfig(options: {
  limits: ContainerLimits
  network: 'none' | 'full'
  binds?: string[]
  effect?: ExtraArgsEffect
}): Docker.HostConfig {
  const { limits, effect } = options
  const seccomp = effect?.weakened.syscallsRestricted ? [] : [`seccomp=${containerSeccompProfile()}`]
  const memory = Math.round(limits.memoryMb * 1024 * 1024)
  const networkMode = (effect?.hostConfig.NetworkMode as string | undefined) ?? (options.network === 'full' ? 'bridge' : 'none')
  return {
    CapDrop: ['ALL'],
    PidsLimit: limits.pids,
    Memory: memory,
    MemorySwap: memory,
    NanoCpus: 1_000_000_000,
    NetworkMode: networkMode,
    ReadonlyRootfs: true,
    Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=512m', '/run': 'rw,nosuid,nodev,size=16m' },
    Init: true,
    // A per-process backstop; the per-run budget across all processes is the runner's (cpu-budget.ts).
    Ulimits: [{ Name: 'cpu', Soft: limits.cpuSeconds, Hard: limits.cpuSeconds + 1 }],
    ...(effect?.hostConfig ?? {}),
    ...(networkMode === 'host' ? {} : { Sysctls: noPingSockets }),
    SecurityOpt: ['no-new-privileges:true', ...seccomp, ...((effect?.hostConfig.SecurityOpt as string[] | undefined) ?? [])],
    Binds: [...(options.binds ?? []), ...((effect?.hostConfig.Binds as string[] | undefined) ?? [])]
  }
}
