import { z } from 'zod'

/**
 * Workspace files and folders that run code later or elsewhere — when the operator runs git, opens
 * the folder in an editor or an agent client, enters it with direnv, or CI picks it up. A sandbox
 * whose workspace is bound whole gets each one that exists mounted **read-only** over itself (and
 * the folders above it inside the workspace pinned, so they cannot be renamed away): a program in
 * the sandbox cannot change them, whatever it is. The agent changes them through the file tools,
 * which ask the operator with the diff. `package.json` is not here: installs must write it; its
 * scripts keep asking through the policy's `config_write` flag.
 *
 * Paths are workspace-relative, exact (no globs), and the list only grows: a profile's
 * `protectedPaths` adds to it. A path that does not exist when a run starts cannot be mounted
 * over: what the run makes there is moved to `.airlock/quarantine/` once it is over
 * (core/sandbox/workspace-entries.ts), except inside a `.git` the run itself made (`git
 * init`), whose config and hooks are the new repository's own.
 */
/** Shell start-up files (sh, bash, zsh, ksh): every command in them runs at the next shell. */
export const shellStartupFiles: readonly string[] = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.mkshrc'
]

export const defaultProtectedPaths: readonly string[] = [
  '.git/hooks',
  '.git/config',
  // Where git looks for more config and hooks (a linked worktree's common dir, per-worktree config).
  '.git/commondir',
  '.git/config.worktree',
  '.git/worktrees',
  '.husky',
  // Workflows and the local actions and scripts they run (`uses: ./.github/actions/build`).
  '.github',
  '.gitlab-ci.yml',
  '.pre-commit-config.yaml',
  '.vscode',
  '.idea',
  '.claude',
  '.cursor',
  '.mcp.json',
  '.envrc',
  ...shellStartupFiles,
  '.ssh'
]

/** One protected path: workspace-relative, plain segments (no `..`, `.`, globs, backslash or NUL), never Airlock's own `.airlock/`. */
export const protectedPathSchema = z
  .string()
  .min(1)
  .max(512)
  .refine((path) => !path.startsWith('/') && path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..'), {
    message: 'must be a workspace-relative path of plain names (no leading /, no . or .. segments)'
  })
  .refine((path) => !/[*?[\]{}\\\0]/.test(path), { message: 'must be an exact path (no glob characters, backslash or NUL)' })
  .refine((path) => path.split('/')[0] !== '.airlock', { message: 'must not be inside .airlock/ (Airlock keeps that itself)' })

/** The protected paths of a sandbox: the defaults, then what a profile adds (duplicates dropped). */
export function protectedPathsWith(extra: readonly string[] = []): string[] {
  return [...new Set([...defaultProtectedPaths, ...extra])]
}
