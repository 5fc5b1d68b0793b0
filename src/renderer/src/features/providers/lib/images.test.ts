import { describe, expect, it } from 'vitest'
import { formatBytes, imagesOfLanguage, readProgress } from './images'

describe('docker images', () => {
  it('reads progress events as running, done or failed with the host message', () => {
    expect(readProgress({ image: 'airlock/python:latest', stage: 'downloading packages', percent: 40 }, 'python')).toMatchObject({
      state: 'running',
      language: 'python',
      percent: 40
    })
    expect(readProgress({ image: 'airlock/python:latest', stage: 'done', percent: 100 }).state).toBe('done')
    expect(readProgress({ image: 'airlock/go:latest', stage: 'failed: debootstrap exited 1: mirror unreachable' })).toMatchObject({
      state: 'failed',
      error: 'debootstrap exited 1: mirror unreachable'
    })
  })

  it('finds the images of a language, newest first', () => {
    const images = [
      { id: 'a', tags: ['airlock/python:old'], languages: ['python'], sizeBytes: 1, created: '2026-01-01T00:00:00Z' },
      { id: 'b', tags: ['airlock/nodejs:latest'], languages: ['nodejs'], sizeBytes: 1, created: '2026-02-01T00:00:00Z' },
      { id: 'c', tags: ['airlock/python:latest'], languages: ['python', 'bash'], sizeBytes: 1, created: '2026-03-01T00:00:00Z' }
    ]
    expect(imagesOfLanguage(images, 'python').map((image) => image.id)).toEqual(['c', 'a'])
    expect(imagesOfLanguage(images, 'go')).toEqual([])
  })

  it('formats sizes', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(1_500_000)).toBe('1.5 MB')
    expect(formatBytes(812_000_000)).toBe('812 MB')
    expect(formatBytes(-1)).toBe('—')
  })
})
