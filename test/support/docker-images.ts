import { join } from 'node:path'
import type Docker from 'dockerode'
import { imageFormat, imageFormatLabel, provisionImages } from '../../src/main/providers/docker/offline-provisioning'
import { homedir } from 'node:os'

/**
 * The test image: python and nodejs provisioned offline by Airlock's own provisioning (debootstrap
 * + docker import, ~1 min the first time), then reused across runs while it exists.
 */
export async function ensureTestImages(docker: Docker): Promise<void> {
  const current = async (image: string) => (await docker.getImage(image).inspect().catch(() => undefined))?.Config?.Labels?.[imageFormatLabel] === imageFormat
  if ((await current('airlock/python:latest')) && (await current('airlock/nodejs:latest'))) return
  await provisionImages({ docker, languages: ['python', 'nodejs'], workDir: join(homedir(), '.cache', 'airlock-test', 'images') })
}
