import { describe, expect, it } from 'vitest'
import { fileWriteRisks } from './file-risks'

describe('fileWriteRisks', () => {
  // Files that run code later or elsewhere (issue 24: these wrote without a flag).
  const flagged: [string, 'vcs_write' | 'config_write'][] = [
    ['.husky/pre-commit', 'vcs_write'],
    ['.gitlab-ci.yml', 'vcs_write'],
    ['.pre-commit-config.yaml', 'vcs_write'],
    ['.git/hooks/pre-commit', 'vcs_write'],
    ['.vscode/tasks.json', 'config_write'],
    ['.idea/workspace.xml', 'config_write'],
    ['.claude/settings.json', 'config_write'],
    ['.cursor/mcp.json', 'config_write'],
    ['.mcp.json', 'config_write'],
    ['.ssh/authorized_keys', 'config_write'],
    ['Makefile', 'config_write'],
    ['sub/GNUmakefile', 'config_write'],
    ['.local/lib/python3.11/site-packages/usercustomize.py', 'config_write'],
    ['venv/lib/python3.11/site-packages/sitecustomize.py', 'config_write'],
    ['.local/lib/python3.11/site-packages/evil.pth', 'config_write'],
    ['.envrc', 'config_write']
  ]
  for (const [path, flag] of flagged) it(`flags ${path} as ${flag}`, () => expect(fileWriteRisks(path)).toEqual([flag]))

  for (const path of ['src/main.py', 'README.md', 'docs/vscode.md', 'makefile.txt', 'notes/pth.txt']) {
    it(`leaves ${path} alone`, () => expect(fileWriteRisks(path)).toEqual([]))
  }
})
