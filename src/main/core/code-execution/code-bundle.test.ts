import { describe, expect, it } from 'vitest'
import { createCodeBundle } from './code-bundle'

const py = (extra: Record<string, unknown> = {}) => ({ language: 'python', sourceCode: 'print(1)', ...extra })

function refusal(request: unknown): string {
  try {
    createCodeBundle(request)
  } catch (error) {
    return (error as Error).message
  }
  return 'accepted'
}

describe('code bundles', () => {
  it('are content-addressed: same content, same digest; any change, another digest', () => {
    const a = createCodeBundle(py())
    expect(a.digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(createCodeBundle(py()).digest).toBe(a.digest)
    expect(createCodeBundle(py({ sourceCode: 'print(2)' })).digest).not.toBe(a.digest)
    expect(a.manifest).toMatchObject({ language: 'python', entrypoint: 'main.py', args: [], expectedOutputs: [] })
    expect(Object.isFrozen(a) && Object.isFrozen(a.files) && Object.isFrozen(a.manifest)).toBe(true)
  })

  it('accepts files with an entrypoint, base64 content and a dependency manifest', () => {
    const bundle = createCodeBundle({
      language: 'python',
      files: [
        { path: 'app/main.py', content: 'import util' },
        { path: 'app/util.py', content: Buffer.from('X = 1').toString('base64'), encoding: 'base64' }
      ],
      entrypoint: 'app/main.py',
      dependencies: { kind: 'requirements.txt', content: 'requests==2.0\n' }
    })
    expect(bundle.files.map((f) => f.path)).toEqual(['app/main.py', 'app/util.py', 'requirements.txt'])
    expect(bundle.files[1]!.bytes.toString()).toBe('X = 1')
  })

  it('rejects a 129th output, Output/x, ../x, absolute paths, NUL and over-long paths before anything runs', () => {
    const outputs = (list: string[]) => py({ expectedOutputs: list })
    expect(refusal(outputs(Array.from({ length: 129 }, (_, i) => `output/${i}.txt`)))).toMatch(/expectedOutputs/)
    expect(refusal(outputs(Array.from({ length: 128 }, (_, i) => `output/${i}.txt`)))).toBe('accepted')
    expect(refusal(outputs(['Output/x']))).toMatch(/must be a file under output\//)
    expect(refusal(outputs(['output/../x']))).toMatch(/contains \.\./)
    expect(refusal(outputs(['../x']))).toMatch(/contains \.\./)
    expect(refusal(outputs(['/etc/passwd']))).toMatch(/is absolute/)
    expect(refusal(outputs(['output/a\0b']))).toMatch(/contains NUL/)
    expect(refusal(outputs([`output/${'x'.repeat(4100)}`]))).toMatch(/longer than 4096 bytes/)
    expect(refusal(outputs(['output/Report.txt', 'output/report.txt']))).toMatch(/duplicates another output when case is ignored/)
    expect(refusal(outputs(['output\\x']))).toMatch(/backslash/)
  })

  it('rejects bad files: traversal, duplicates, missing entrypoint, both or neither of code and files, oversize', () => {
    expect(refusal({ language: 'python', files: [{ path: '../evil.py', content: '' }], entrypoint: '../evil.py' })).toMatch(/contains \.\./)
    expect(
      refusal({
        language: 'python',
        files: [
          { path: 'a.py', content: '' },
          { path: 'a.py', content: '' }
        ],
        entrypoint: 'a.py'
      })
    ).toMatch(/appears twice/)
    expect(refusal({ language: 'python', files: [{ path: 'a.py', content: '' }], entrypoint: 'b.py' })).toMatch(/not one of the files/)
    expect(refusal({ language: 'python' })).toMatch(/exactly one of sourceCode or files/)
    expect(refusal({ language: 'python', sourceCode: 'x', files: [] })).toMatch(/exactly one of sourceCode or files/)
    expect(refusal({ language: 'cobol', sourceCode: 'x' })).toMatch(/language/)
    expect(refusal(py({ args: Array.from({ length: 257 }, () => 'a') }))).toMatch(/args/)
    expect(refusal(py({ sourceCode: 'x'.repeat(16 * 1024 * 1024 + 1) }))).toMatch(/larger than/)
    expect(refusal(py({ extra: true }))).toMatch(/extra/)
  })
})
