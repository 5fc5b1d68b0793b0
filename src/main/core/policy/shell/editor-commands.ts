/**
 * The command languages of editors, debuggers and pagers that reach a shell (`./code-options.ts`):
 * one command as the program reads it, and the shell code it runs. `code` is the text after the
 * shell escape, parsed by the walk like any script; `opaque` marks a command that runs code this
 * reading does not follow (a script language, `:execute`, `system()`, a pipe), which asks.
 * Everything else (`q`, `wq!`, `set ft=sh`, `%s/a/b/g`, `+G`, `bt`) runs nothing.
 * - ex/vi/vim (`-c`, `--cmd`, `+CMD`, and the lines `ex`/`vim -e` read): `:!CMD`, `:{range}!CMD`,
 *   `:r !CMD`, `:w !CMD`, `:g/pat/CMD` (CMD read again), `|` between commands (`!` takes the rest);
 * - ed (the lines it reads): `!CMD`, `r !CMD`, `w !CMD`, `e !CMD`, `g/re/CMD`;
 * - gdb (`-ex`, `--eval-command`, `-iex`, the lines it reads): `!CMD`, `shell CMD`;
 * - less (`+CMD`, `++CMD`): `!CMD`.
 */

export type EditorCode = { code: string[]; opaque: boolean }

const none = (): EditorCode => ({ code: [], opaque: false })

/** Ex commands that run code in a language or from text built at run time, or type keys. */
const exOpaque =
  /^(?:sh|she|shel|shell|te|ter|term|termi|termin|termina|terminal|exe|exec|execu|execut|execute|norm|norma|normal|so|sou|sour|sourc|source|ru|run|runt|runti|runtim|runtime|pe|perl|perld|perldo|py|pyt|pyth|pytho|python|py3|python3|pyx|pythonx|pydo|py3do|pyxdo|pyf|pyfile|py3f|py3file|pyxfile|lua|luado|luafile|rub|ruby|rubydo|rubyfile|tc|tcl|tcldo|tclfile|mz|mzscheme|mzf|mzfile|cal|call|mak|make|lmak|lmake|gr|grep|lgr|lgrep|cs|cscope|lcs|lcscope|argdo|bufdo|windo|tabdo|cdo|cfdo|ldo|lfdo|au|autocmd|com|command|redir|vim9|vim9cmd|leg|legacy|filt|filter|bro|browse|conf|confirm|star|start|startinsert)$/
/** Modifiers that run the command after them (`:silent !CMD`). */
const exModifier =
  /^(?:sil|sile|silen|silent|uns|unsilent|keepp|keeppatterns|keepj|keepjumps|keepm|keepmarks|keepa|keepalt|lockm|lockmarks|noa|noautocmd|nos|noswapfile|vert|vertical|tab|bo|botright|to|topleft|abo|aboveleft|bel|belowright|lefta|leftabove|rightb|rightbelow|hid|hide|sandbox)$/
/** `system()`, jobs and other calls that reach a shell from an expression. */
const callsShell =
  /\b(?:system|systemlist|job_start|jobstart|termopen|term_start|libcall|libcallnr|execute|win_execute|luaeval|py3eval|pyeval|pyxeval|rubyeval|perleval|mzeval)\s*\(/

/** One ex command line (`-c` value, `+CMD`, or a line `ex` reads). */
export function exCommand(text: string, depth = 0): EditorCode {
  const out = none()
  let rest = text
  while (rest.trim() !== '' && depth < 8) {
    const cmd = rest
      .replace(/^[\s:]*/, '')
      .replace(/^(?:[%.$\d,;+-]|'[a-zA-Z<>[\]]|\/(?:[^/\\]|\\.)*\/?|\?(?:[^?\\]|\\.)*\??|\\[/?&])*/, '')
      .replace(/^\s*/, '')
    if (cmd.startsWith('!')) {
      out.code.push(cmd.slice(1))
      return out
    }
    const name = /^[a-zA-Z]+[0-9]?/.exec(cmd)?.[0] ?? ''
    const after = cmd.slice(name.length)
    if (exModifier.test(name)) {
      rest = after.replace(/^!?/, '')
      continue
    }
    if (/^(?:r|re|rea|read)$/.test(name) && /^\s*!/.test(after)) {
      out.code.push(after.replace(/^\s*!/, ''))
      return out
    }
    if (/^(?:w|wr|wri|writ|write|up|upd|upda|updat|update)$/.test(name) && /^\s+!/.test(after)) {
      out.code.push(after.replace(/^\s+!/, ''))
      return out
    }
    const global = /^(?:g|gl|glo|glob|globa|global|v|vg|vgl|vglo|vglob|vgloba|vglobal)$/.test(name)
      ? /^!?\s*([^\w\s"|])((?:(?!\1)[^\\]|\\.)*)\1?([\s\S]*)$/.exec(after)
      : null
    if (global) {
      const inner = exCommand(global[3] ?? '', depth + 1)
      return { code: [...out.code, ...inner.code], opaque: out.opaque || inner.opaque }
    }
    if (exOpaque.test(name) || callsShell.test(cmd) || /\\=/.test(cmd)) out.opaque = true
    // `|` ends most commands (`s/a/b/|!cmd`); a `\|` or `"|` inside a pattern is approximated as an end too.
    const bar = cmd.indexOf('|')
    if (bar < 0) break
    rest = cmd.slice(bar + 1)
  }
  return out
}

/** One line `ed` reads. */
export function edCommand(line: string): EditorCode {
  const cmd = line.replace(/^(?:[%.$\d,;+-]|'[a-z]|\/(?:[^/\\]|\\.)*\/?|\?(?:[^?\\]|\\.)*\??)*/, '').replace(/^\s*/, '')
  if (cmd.startsWith('!')) return { code: [cmd.slice(1)], opaque: false }
  const io = /^(?:[rweEW]|wq)\s*!([\s\S]*)$/.exec(cmd)
  if (io) return { code: [io[1] ?? ''], opaque: false }
  const global = /^[gGvV]([^\s\\])((?:(?!\1)[^\\]|\\.)*)\1?([\s\S]*)$/.exec(cmd)
  if (global) return global[3]?.includes('!') ? { code: [], opaque: true } : none()
  return none()
}

/** One gdb command (`-ex` value or a line gdb reads). */
export function gdbCommand(text: string): EditorCode {
  const cmd = text.trim()
  if (cmd.startsWith('!')) return { code: [cmd.slice(1)], opaque: false }
  const shell = /^(?:she|shel|shell)(?:\s+([\s\S]*))?$/.exec(cmd)
  if (shell) return { code: [shell[1] ?? ''], opaque: false }
  const name = /^[a-zA-Z-]+/.exec(cmd)?.[0] ?? ''
  const opaque =
    /^(?:pi|py|pyt|pyth|pytho|python|python-interactive|gu|gr|guile|guile-repl|so|sou|sour|sourc|source|pipe|compile|expression|eval|define|document|alias|tui)$/.test(
      name
    ) ||
    cmd.startsWith('|') ||
    /\b(?:system|popen|execl|execv|execve|execvp|execlp)\s*\(|\$_shell\s*\(/.test(cmd)
  return { code: [], opaque }
}

/** One less command (`+CMD`, without the `+`). */
export function lessCommand(text: string): EditorCode {
  if (text.startsWith('!')) return { code: [text.slice(1)], opaque: false }
  if (text.startsWith('/') || text.startsWith('?')) return none()
  return { code: [], opaque: /[!|]/.test(text) || /^[vsE]/.test(text) }
}

/** The shell lines in a crontab text (after the five time fields or an `@` schedule; not `NAME=value` lines). */
export function crontabCommands(text: string): string[] {
  const out: string[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || /^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(line)) continue
    const m = /^(?:@\w+|(?:\S+\s+){4}\S+)\s+([\s\S]*)$/.exec(line)
    // A line that is no schedule still goes to cron, which rejects it; read it whole (it asks if it runs code).
    out.push((m?.[1] ?? line).replace(/%[\s\S]*$/, ''))
  }
  return out
}
