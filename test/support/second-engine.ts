import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import Docker from 'dockerode'

/**
 * A second Docker engine for tests of a remote engine: its own `dockerd` (own data root, exec
 * root, pid file, containerd and bridge, no iptables) listening only on a loopback TCP port
 * with TLS, with a CA, server and client certificates generated here by `openssl`. Nothing of the
 * first engine is shared; everything it needs comes over its API.
 *
 * Its bridge is its own on purpose: a dockerd started with `--bridge=none` deletes the `docker0`
 * interface at start, which takes the first engine's default network away from every other test.
 */
export type SecondEngine = {
  /** `tcp://127.0.0.1:<port>` */
  host: string
  /** Holds ca.pem, cert.pem, key.pem (the client's): what `DOCKER_CERT_PATH` names. */
  certPath: string
  docker: Docker
  stop(): Promise<void>
}

export async function startSecondEngine(dir: string, storageDriver: string): Promise<SecondEngine> {
  const tls = join(dir, 'tls')
  const client = join(dir, 'client')
  mkdirSync(tls, { recursive: true })
  mkdirSync(client, { recursive: true })
  makeCertificates(tls, client)
  const port = await freePort()
  const bridge = makeBridge()
  const config = join(dir, 'daemon.json')
  writeFileSync(config, '{}') // never the machine's /etc/docker/daemon.json
  const args = [
    `--config-file=${config}`,
    `--data-root=${join(dir, 'data')}`,
    `--exec-root=${join(dir, 'x')}`,
    `--pidfile=${join(dir, 'dockerd.pid')}`,
    `--host=tcp://127.0.0.1:${port}`,
    '--tlsverify',
    `--tlscacert=${join(tls, 'ca.pem')}`,
    `--tlscert=${join(tls, 'server-cert.pem')}`,
    `--tlskey=${join(tls, 'server-key.pem')}`,
    `--bridge=${bridge.name}`,
    '--iptables=false',
    '--ip-masq=false',
    `--storage-driver=${storageDriver}`
  ]
  const log: Buffer[] = []
  const child: ChildProcess = spawn('dockerd', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (chunk: Buffer) => log.push(chunk))
  child.stderr!.on('data', (chunk: Buffer) => log.push(chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const docker = new Docker({
    host: '127.0.0.1',
    port,
    protocol: 'https',
    ca: readPem(client, 'ca.pem'),
    cert: readPem(client, 'cert.pem'),
    key: readPem(client, 'key.pem')
  })
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))])
    if (child.exitCode === null) child.kill('SIGKILL')
    bridge.remove()
  }
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`the second dockerd exited: ${Buffer.concat(log).toString().slice(-2000)}`)
    try {
      await docker.version()
      break
    } catch (error) {
      if (attempt > 120) {
        await stop()
        throw new Error(`the second dockerd did not answer: ${(error as Error).message}\n${Buffer.concat(log).toString().slice(-2000)}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
  return { host: `tcp://127.0.0.1:${port}`, certPath: client, docker, stop }
}

/** Copies an image from one engine to another over both APIs (`docker save | docker load`). */
export async function copyImage(from: Docker, to: Docker, image: string): Promise<void> {
  const saved = await from.getImage(image).get()
  const loading = await to.loadImage(saved, { quiet: true })
  await new Promise<void>((resolve, reject) => {
    loading.on('error', reject)
    loading.on('end', resolve)
    loading.resume()
  })
}

/** A bridge interface of the test's own, with a private /24 (`ip` from iproute2). */
function makeBridge(): { name: string; remove(): void } {
  const name = `alrt${process.pid.toString(36).slice(-6)}`
  const ip = (...args: string[]) => spawnSync('ip', args, { encoding: 'utf8' })
  ip('link', 'delete', name) // a leftover of a killed run
  for (const args of [
    ['link', 'add', name, 'type', 'bridge'],
    ['addr', 'add', `10.231.${process.pid % 250}.1/24`, 'dev', name],
    ['link', 'set', name, 'up']
  ]) {
    const run = ip(...args)
    if (run.status !== 0) throw new Error(`ip ${args.join(' ')} failed: ${run.stderr}`)
  }
  return { name, remove: () => void ip('link', 'delete', name) }
}

function makeCertificates(tls: string, client: string): void {
  const ssl = (...args: string[]) => {
    const run = spawnSync('openssl', args, { cwd: tls, encoding: 'utf8' })
    if (run.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${run.stderr}`)
  }
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=airlock-test-ca', '-keyout', 'ca-key.pem', '-out', 'ca.pem')
  writeFileSync(join(tls, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n')
  writeFileSync(join(tls, 'client.ext'), 'extendedKeyUsage=clientAuth\n')
  for (const [name, subject] of [
    ['server', '/CN=127.0.0.1'],
    ['client', '/CN=airlock-test-client']
  ] as const) {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`)
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}-cert.pem`
    )
  }
  // What DOCKER_CERT_PATH holds, named as the docker CLI and dockerode expect.
  for (const [from, to] of [
    ['ca.pem', 'ca.pem'],
    ['client-cert.pem', 'cert.pem'],
    ['client-key.pem', 'key.pem']
  ] as const) {
    writeFileSync(join(client, to), readPem(tls, from))
  }
}

function readPem(dir: string, name: string): string {
  return readFileSync(join(dir, name), 'utf8')
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
