import type Docker from 'dockerode'
import { sandboxIdentity, type SandboxIdentity } from '../../core'
import { containerBaseEnv, defaultLimits, hardenedHostConfig, runUser } from './container-spec'
import { DockerProviderError } from './docker-errors'

/** How each language's toolchain proves it runs: the program, and what it must print (if anything). */
export const toolchainChecks: Record<string, { argv: string[]; prints?: string }> = {
  python: { argv: ['python3', '-c', 'print(1)'], prints: '1' },
  nodejs: { argv: ['node', '-e', 'console.log(1)'], prints: '1' },
  bash: { argv: ['bash', '-c', 'echo 1'], prints: '1' },
  go: { argv: ['go', 'version'] },
  cpp: { argv: ['g++', '--version'] }
}

/**
 * Runs each language's toolchain inside `image` exactly as Airlock's containers will: as the
 * sandbox identity, hardened (seccomp allowlist, no capabilities, read-only root, no network).
 * Throws `docker.provisioning_failed` with what the toolchain said when one does not run.
 */
export async function verifyImage(docker: Docker, image: string, languages: readonly string[], identity: SandboxIdentity = sandboxIdentity()): Promise<void> {
  for (const language of languages) {
    const check = toolchainChecks[language]
    if (!check) continue
    const { exitCode, output } = await runOnce(docker, image, check.argv, identity)
    const printed = output.trim()
    if (exitCode === 0 && (check.prints === undefined || printed === check.prints)) continue
    throw new DockerProviderError(
      'docker.provisioning_failed',
      `The image ${image} cannot run ${language} as uid ${identity.uid} (the uid Airlock's containers use): \`${check.argv.join(' ')}\` ` +
        `exited ${exitCode}${printed ? ` and said: ${printed.slice(0, 400)}` : ''}. Make sure the image's / and /usr are readable and searchable by every user (mode 0755) and contain the ${language} toolchain, then provision it again.`,
      { image, language, exitCode, uid: identity.uid }
    )
  }
}

/** Runs one program to completion in a throwaway hardened container; output is stdout+stderr. */
async function runOnce(docker: Docker, image: string, argv: string[], identity: SandboxIdentity): Promise<{ exitCode: number; output: string }> {
  let container: Docker.Container | undefined
  try {
    container = await docker.createContainer({
      Image: image,
      Cmd: argv,
      User: runUser(identity),
      WorkingDir: '/',
      Env: Object.entries(containerBaseEnv).map(([k, v]) => `${k}=${v}`),
      HostConfig: hardenedHostConfig({ limits: { ...defaultLimits, cpuSeconds: 60 }, network: 'none' })
    })
    await container.start()
    const waited = (await Promise.race([container.wait(), new Promise((resolve) => setTimeout(() => resolve(undefined), 60_000).unref())])) as
      | { StatusCode: number }
      | undefined
    const logs = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer
    return { exitCode: waited?.StatusCode ?? 124, output: demuxed(logs) }
  } catch (error) {
    // The engine refuses to start a program it cannot find or execute: that is the answer too.
    return { exitCode: 127, output: (error as Error).message }
  } finally {
    await container?.remove({ force: true }).catch(() => undefined)
  }
}

/** The payload of a multiplexed log buffer (8-byte frame headers), both streams in order. */
function demuxed(buffer: Buffer): string {
  const parts: Buffer[] = []
  let offset = 0
  while (offset + 8 <= buffer.length) {
    const size = buffer.readUInt32BE(offset + 4)
    parts.push(buffer.subarray(offset + 8, offset + 8 + size))
    offset += 8 + size
  }
  return Buffer.concat(parts).toString('utf8')
}
