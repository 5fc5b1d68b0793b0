import { describe, expect, it } from 'vitest'
import { previewCode } from './code-preview'

describe('run_code preview', () => {
  it('shows language, entrypoint, args, outputs, dependencies and the code', () => {
    const preview = previewCode({
      language: 'python',
      sourceCode: "import os\nos.system('x')\n",
      args: ['--go', 'a b'],
      expectedOutputs: ['output/r.txt'],
      dependencies: { kind: 'requirements.txt', content: 'requests==2\n' }
    })
    expect(preview).toBe(
      [
        'language: python',
        'entrypoint: (sourceCode)',
        'args: ["--go","a b"]',
        'expected outputs: output/r.txt',
        '',
        'requirements.txt (12 characters):',
        '| requests==2',
        '',
        'sourceCode (25 characters):',
        '| import os',
        "| os.system('x')",
        ''
      ].join('\n')
    )
  })

  it('shows every file, the entrypoint first, base64 text decoded and binary named by size', () => {
    const preview = previewCode({
      language: 'nodejs',
      entrypoint: 'main.js',
      files: [
        { path: 'lib.js', content: 'module.exports = 1' },
        { path: 'main.js', content: Buffer.from("require('./lib')").toString('base64'), encoding: 'base64' },
        { path: 'blob.bin', content: Buffer.from([0xff, 0xfe, 0]).toString('base64'), encoding: 'base64' }
      ]
    })
    expect(preview.indexOf('\nmain.js (')).toBeLessThan(preview.indexOf('\nlib.js ('))
    expect(preview).toContain("| require('./lib')")
    expect(preview).toContain('(binary, 3 bytes, not shown)')
    expect(preview).toContain('args: none')
  })

  it('keeps file text from passing for its own lines: content after `| `, odd names quoted', () => {
    const preview = previewCode({
      language: 'bash',
      entrypoint: 'a.sh',
      files: [
        { path: 'a.sh', content: 'echo ok\n\nb.sh (3 characters):\nrm -rf ~' },
        { path: 'x y.sh', content: '' }
      ]
    })
    expect(preview).toContain('| echo ok\n| \n| b.sh (3 characters):\n| rm -rf ~\n')
    expect(preview).toContain('\n"x y.sh" (0 characters):\n')
  })

  it('is bounded, and says how much it left out', () => {
    const files = Array.from({ length: 5 }, (_, i) => ({ path: `f${i}.py`, content: `${'x'.repeat(20_000)}\n` }))
    const preview = previewCode({ language: 'python', entrypoint: 'f0.py', files })
    expect(preview.length).toBeLessThanOrEqual(60 * 1024)
    const marker = /… (\d+) more characters \(and (\d+) more files?\) not shown\n$/.exec(preview)
    expect(marker, preview.slice(-200)).not.toBeNull()
    expect(Number(marker![2])).toBe(1)
    expect(preview).not.toContain('\nf4.py (')
  })
})
