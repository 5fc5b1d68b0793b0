import { mkdirSync, rmdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type Docker from 'dockerode'
import { imageFormat, imageFormatLabel, provisionImages } from '../../src/main/providers/docker/offline-provisioning'

const cache = join(homedir(), '.cache', 'airlock-test')

/**
 * The test image: python and nodejs provisioned offline by Airlock's own provisioning (debootstrap
 * + docker import, ~1 min the first time), then reused across runs while it exists. Test files
 * running in parallel take a lock so only one of them provisions.
 */
export async function ensureTestImages(docker: Docker): Promise<void> {
  const current = async (image: string) =>
    (
      await docker
        .getImage(image)
        .inspect()
        .catch(() => undefined)
    )?.Config?.Labels?.[imageFormatLabel] === imageFormat
  const ready = async () => (await current('airlock/python:latest')) && (await current('airlock/nodejs:latest'))
  if (await ready()) return
  const lock = join(cache, 'provisioning.lock')
  mkdirSync(cache, { recursive: true })
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      // Another test file is provisioning; a lock older than 10 minutes is from a dead run.
      if (Date.now() - statSync(lock).mtimeMs > 600_000) rmdirSync(lock)
      await new Promise((resolve) => setTimeout(resolve, 2000))
    }
  }
  try {
    if (!(await ready())) await provisionImages({ docker, languages: ['python', 'nodejs'], workDir: join(cache, 'images') })
  } finally {
    rmdirSync(lock)
  }
}
